/** A binary min-heap ordered by `at`; the work queue's delayed items live here (O(log n) per op). */
export interface HeapEntry<V> {
  at: number;
  value: V;
}

export class MinHeap<V> {
  private readonly items: HeapEntry<V>[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): HeapEntry<V> | undefined {
    return this.items[0];
  }

  push(entry: HeapEntry<V>): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent].at <= items[i].at) break;
      [items[parent], items[i]] = [items[i], items[parent]];
      i = parent;
    }
  }

  pop(): HeapEntry<V> | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }

  private siftDown(start: number): void {
    const items = this.items;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && items[left].at < items[smallest].at) smallest = left;
      if (right < items.length && items[right].at < items[smallest].at) smallest = right;
      if (smallest === i) return;
      [items[smallest], items[i]] = [items[i], items[smallest]];
      i = smallest;
    }
  }
}
