# zvm-operator image: one binary, subcommands `controller`, `rest`, `standalone`, `sim`.
# Build: docker build -t ghcr.io/zvm-operator/zvm-operator:0.1.0 .
# The runtime stage runs as uid/gid 1000 and writes nothing outside /tmp, so it works with
# readOnlyRootFilesystem and the restricted Pod Security Standard (deploy/, helm/zvm-operator/).

FROM node:22-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci builds dist/ (the prepare script), so the sources come first
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:22-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=0:0 /src/package.json ./package.json
COPY --from=build --chown=0:0 /src/node_modules ./node_modules
COPY --from=build --chown=0:0 /src/dist ./dist
# Numeric user: the kubelet can only verify runAsNonRoot for a numeric uid (node:22-slim's `node` is 1000).
USER 1000:1000
EXPOSE 8080 8081 8888
ENTRYPOINT ["node", "dist/cmd/main.js"]
CMD ["controller"]
