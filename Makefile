# SplayLab: `make up` runs the service here, `make test` runs every test. Both install first.
.PHONY: up test deps test-deps frontend bench bench-sandbox docker-check clean

FRONTEND_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	$(wildcard frontend/index.html frontend/vite.config.* frontend/package.json frontend/tsconfig*.json)

up: deps frontend
	./splaylab up

test: test-deps frontend
	scripts/test.sh

deps:
	scripts/install-deps.sh

test-deps:
	scripts/install-deps.sh --test

frontend: frontend/dist/index.html

frontend/dist/index.html: $(FRONTEND_SOURCES)
	cd frontend && npm run build

bench: deps frontend
	.venv/bin/python bench/run.py

bench-sandbox: deps
	.venv/bin/python bench/sandbox.py

docker-check: frontend
	scripts/install-deps.sh --docker
	docker/check.sh

clean:
	./splaylab status >/dev/null 2>&1 && { echo "stop ./splaylab up first"; exit 1; } || true
	rm -rf var frontend/dist
