# Optional stand-in for the postgres:15 image, built from Debian's postgresql-15 package on
# the local base image, for machines without registry access. It honours the subset of the
# official image's interface that docker-compose.yml uses: POSTGRES_USER, POSTGRES_PASSWORD,
# POSTGRES_DB, data in /var/lib/postgresql/data, pg_isready on PATH, port 5432.
#
#   docker build -f docker/postgres.Dockerfile -t splaylab/postgres:15 docker/
#   POSTGRES_IMAGE=splaylab/postgres:15 docker-compose up -d
ARG BASE_IMAGE=splaylab/base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/no-main-cluster.conf \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["tini", "--", "/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
