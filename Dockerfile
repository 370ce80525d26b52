# The service as a container image. Nothing here was built or run where it was written (no
# container engine on that machine); see the note in compose.yaml.
#
# Two stages. `check` installs every dependency, type-checks the source, so an image is never
# built from code that does not compile, and compiles it to plain JavaScript in dist/ with esbuild
# (scripts/build.mjs, what `npm start` runs first; the payment simulator, a workspace package under
# packages/, goes into a chunk of dist/ that production never loads). `runtime` installs the
# production dependencies only (npm ci --omit=dev: no tsx, esbuild, TypeScript or the simulator's
# workspace package) and takes dist/ and the migrations; it runs the service with plain node.
# package.json must be there too: the service finds migrations/ from the directory that holds it.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-slim AS check
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY packages/payments-simulator/package.json ./packages/payments-simulator/
RUN npm ci --no-audit --no-fund
COPY src ./src
COPY packages ./packages
COPY scripts/build.mjs ./scripts/
RUN node_modules/.bin/tsc --noEmit -p . && node scripts/build.mjs

FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/app/.data \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=check /app/dist ./dist
COPY migrations ./migrations
# The image's files stay root's (read-only to the service); only DATA_DIR is the service's.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 8000
# curl is not in the slim image; node's own fetch asks /healthz.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly, not npm: SIGTERM from `docker stop` reaches the service's graceful shutdown.
# The same command as package.json's start: 4 MB semi-spaces (V8's young generation; Node's
# default is 16) and an old generation collected once it grows by 30 % keep the peak resident
# memory under load within the benchmark's target (docs/design.md, docs/benchmarks.md).
# dist/otel.mjs first, as scripts/start.mjs imports it: OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT
# is set (docs/operations.md#traces), nothing otherwise.
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=30", "--import=./dist/otel.mjs", "dist/server.mjs"]
