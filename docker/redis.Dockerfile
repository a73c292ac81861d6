# Optional stand-in for the redis:7 image, built from Debian's redis-server package (7.0) on
# the local base image, for machines without registry access. Like the official image: data
# in /data, redis-cli on PATH, port 6379, no protected mode (reachable on the compose network).
#
#   docker build -f docker/redis.Dockerfile -t splaylab/redis:7 docker/
#   REDIS_IMAGE=splaylab/redis:7 docker-compose up -d
ARG BASE_IMAGE=splaylab/base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o redis -g redis /data
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["tini", "--"]
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data", "--daemonize", "no", "--logfile", ""]
