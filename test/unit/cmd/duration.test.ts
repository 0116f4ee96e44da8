import { parseDuration } from '../../../src/cmd/duration.js';
import { InvalidInputError } from '../../../src/errors.js';

describe('parseDuration (Go / kubectl form)', () => {
  it.each([
    ['90s', 90_000], ['1m30s', 90_000], ['1h', 3_600_000], ['500ms', 500], ['2m', 120_000], ['1h2m3s', 3_723_000],
    ['1.5h', 5_400_000], ['.5s', 500], ['1500us', 2], ['1500µs', 2], ['2000000ns', 2], ['0s', 0], ['0', 0],
    ['15', 15_000], ['2.5', 2500], [' 10s ', 10_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('takes a number as seconds', () => {
    expect(parseDuration(3)).toBe(3000);
  });

  it.each(['', 'abc', '1d', '-5s', '5 s', '1m30', 's', '1h 2m', '10sec', '1e3s'])('refuses %j with the accepted forms in the message', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidInputError);
    expect(() => parseDuration(text)).toThrow(/bad duration .*90s, 1m30s, 1h, 500ms/);
  });
});
