# syntax=docker/dockerfile:1
# Parley's container image (docs/deploy.md). Stage "build" compiles better-sqlite3 and the
# parley_rank SQLite extension and builds the server bundles and the widget, with a compiler;
# the final stage installs the production dependencies with `npm ci --omit=dev` and takes only
# the compiled and built files from it, so the image has no compiler and no dev dependency.
# It runs as the unprivileged user `node`, keeps its state in the volume /data and answers its
# HEALTHCHECK on /healthz. test/deploy/deploy-files.test.ts checks these properties.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
# Dependencies in their own layer (reused while only the source changes); their scripts run below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm rebuild better-sqlite3 esbuild \
  && npm run build:rank \
  && npm run build

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
# Scripts off: better-sqlite3's native module and the rank extension come compiled from "build".
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node node_modules/better-sqlite3/build/Release/
COPY --from=build /app/build ./build
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: stop accepting, finish requests in flight, put running jobs back, exit within 10 s.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "dist/server/main.js"]
