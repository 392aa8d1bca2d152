# mapwarden: the standalone server, data directory on a volume.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm ci builds (the prepare script) once the sources are in; npm prune drops better-sqlite3 13
# (installed by the postinstall script, not listed in package.json), so the script runs again.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev && npm_config_omit=dev scripts/install-sqlite-napi.sh

FROM node:24-bookworm-slim
WORKDIR /app
# The fonts vector labels are drawn with (sharp's librsvg finds them through fontconfig, whose fc-match
# names the file a label is measured with): the Debian packages scripts/install-wms-tools.sh installs.
RUN apt-get update && apt-get install -y --no-install-recommends fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 && rm -rf /var/lib/apt/lists/*
# MALLOC_ARENA_MAX=2: glibc's per-thread malloc arenas otherwise add ~100 MB of RSS while render threads seed;
# MALLOC_MMAP_THRESHOLD_: blocks of 1 MiB and more go back to the system when freed (libvips' windows).
# --max-semi-space-size=4: the event loop's young generation stays at 8 MB, where V8 grows it to 32 MB under
# a seed's traffic (about 35 MB of RSS, for short scavenges either way).
ENV NODE_ENV=production MAPWARDEN_HOST=0.0.0.0 MAPWARDEN_PORT=8080 MAPWARDEN_DATA_DIR=/data MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
VOLUME /data
EXPOSE 8080
USER node
CMD ["node", "--max-semi-space-size=4", "dist/plugins/server.js"]
