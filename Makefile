# pulumi-cloudplatform: `make demo` and `make test` set up everything they need.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM ?= npm

.PHONY: help deps system-deps build typecheck tools compat vitest sdkgen schema plugin python-sdk test test-full test-unit test-e2e demo bench bench-scale bench-s3 emulator pack release registries mutation clean

help:
	@echo "make demo    run the quickstart (and the other examples) against the embedded emulator"
	@echo "make test    the tests to run on each change: unit, emulator, client, each capability's lifecycle (real Pulumi CLI)"
	@echo "make test-full  every test (what CI runs): also the examples' commands, packaging, the newest CLI, other dates"
	@echo "make test-unit  the fast tier: tests that need Node and the build only (jest.unit.config.js)"
	@echo "make tools   build the Pulumi CLI v3.248.0 and the YAML language host into .tools/bin"
	@echo "make registries  Verdaccio and pypiserver in .tools/registries, for the release test (make test-full)"
	@echo "make compat  set up the newest tested pair (CLI v3.274.1, @pulumi/pulumi, Python pulumi, Node.js 22) in .tools"
	@echo "make schema  regenerate schema.json, sdk/types.ts and the generated SDKs (sdk/native, sdk/python, sdk/go)"
	@echo "make plugin  build the plugin's release archives (one per OS and architecture) into dist-plugin/"
	@echo "make bench   run the benchmarks in bench/"
	@echo "make bench-scale  cost against size (stacks, fleets, workspaces, the 429 path) with charts; about 40 min, not in CI"
	@echo "make emulator  start the emulator on port 4510"
	@echo "make mutation  mutation testing of provider/ with the fast tests (StrykerJS; slow, not part of make test)"
	@echo "make python-sdk  build the Python SDK wheel (dist/python) into .venv"
	@echo "make release VERSION=x.y.z  every artifact of a release at that version into dist-release/ (npm, python, go, plugin)"
	@echo "make pack    build the npm packages into the repository root: pulumi-cloudplatform-<version>.tgz (the provider)"
	@echo "             and pulumi-cloudplatform-emulator-<version>.tgz (@pulumi-cloudplatform/emulator: the emulator, the app testing kit)"

# Two packages, one build: the provider is this folder, the emulator (packages/emulator, a workspace)
# takes its files from the same dist/, linked into it.
node_modules/.installed: package.json package-lock.json packages/emulator/package.json
	$(NPM) ci --no-audit --no-fund
	ln -sfn .. node_modules/pulumi-cloudplatform
	ln -sfn ../../dist packages/emulator/dist
	ln -sfn ../@pulumi-cloudplatform/emulator/dist/emulator/cli.js node_modules/.bin/cloudplatform-emulator
	ln -sfn ../pulumi-cloudplatform/dist/provider/adopt/cli.js node_modules/.bin/cloudplatform-adopt
	ln -sfn ../pulumi-cloudplatform/dist/provider/drift/cli.js node_modules/.bin/cloudplatform-drift
	touch $@

deps: node_modules/.installed

# Debian packages the tests use (chromium, postgresql, awscli), when missing.
system-deps:
	./scripts/system-deps.sh

# Incremental: a build with nothing changed takes seconds (the build info lives in dist/).
build: deps
	npx --no-install tsc -p tsconfig.json --incremental
	$(NPM) run --silent copy-ui
	@# The package's commands, run through node_modules/.bin before any npm install has marked them.
	chmod +x dist/emulator/cli.js dist/provider/adopt/cli.js dist/provider/drift/cli.js

# jest only transpiles (tsconfig.jest.json): the tests' types are checked here, with everything else.
# After the build: test programs import the package's own types from dist/.
typecheck: build
	npx --no-install tsc -p tsconfig.test.json --noEmit --incremental --tsBuildInfoFile dist/.tsbuildinfo-test

tools: deps
	./scripts/build-pulumi.sh
	./scripts/build-sdkgen.sh
	./scripts/build-yaml.sh
	./scripts/build-actionlint.sh

# Local npm and PyPI registries (Verdaccio on Node.js 22, pypiserver) for the release test, in .tools/registries.
registries:
	./scripts/build-registries.sh

# The newest tested pair beside the pinned one (CLI, @pulumi/pulumi, Python pulumi, Node.js 22), for test/compat.
compat: build python-sdk
	./scripts/build-compat.sh

# Vitest, at the version examples/app-tests declares, in .tools/vitest (test/testing/app-tests.test.ts).
vitest: deps
	./scripts/build-vitest.sh

# sdkgen's examples run the YAML language host for the YAML ones.
sdkgen:
	./scripts/build-sdkgen.sh
	./scripts/build-yaml.sh

schema: build sdkgen
	node dist/scripts/gen-schema.js > schema.json
	node dist/scripts/gen-sdk-types.js > sdk/types.ts
	.tools/bin/sdkgen nodejs schema.json sdk/native
	.tools/bin/sdkgen python schema.json sdk/python
	.tools/bin/sdkgen go schema.json sdk/go
	cd sdk/go && GONOSUMDB=github.com/pulumi/pulumi go mod tidy
	node dist/scripts/gen-docs.js
	node dist/scripts/gen-graphql-doc.js
	npx --no-install tsc -p tsconfig.json

plugin: build
	./scripts/make-plugin.sh

# The Python SDK's wheel, installed into a virtual environment with the Pulumi SDK of the same release.
PYTHON ?= python3
WHEEL := dist/python/pulumi_cloudplatform-$(shell node -p 'require("./package.json").version')-py3-none-any.whl

.venv/.installed:
	$(PYTHON) -m venv .venv
	.venv/bin/pip install --quiet --disable-pip-version-check pulumi==3.248.0 setuptools wheel parver semver
	touch $@

$(WHEEL): .venv/.installed $(shell find sdk/python -type f -not -path '*/__pycache__/*' 2>/dev/null)
	.venv/bin/pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w dist/python sdk/python
	.venv/bin/pip install --quiet --disable-pip-version-check --no-deps --force-reinstall $(WHEEL)

# mypy type-checks the Python examples of docs/reference (test/docs/examples.test.ts). After the
# wheel (order only), so that under make -j two pip installs never write the venv at once.
.venv/.mypy: .venv/.installed | $(WHEEL)
	.venv/bin/pip install --quiet --disable-pip-version-check mypy==2.4.1
	touch $@

python-sdk: $(WHEEL) .venv/.mypy

# The tier to run on each change (jest.config.js): the fast tier and each capability through the real CLI once.
test: build typecheck tools python-sdk system-deps
	CHECK_VS_API_RUNS=$${CHECK_VS_API_RUNS:-500} GATE_FUZZ_RUNS=$${GATE_FUZZ_RUNS:-2000} DRIFT_HARNESS=$${DRIFT_HARNESS:-small} scripts/jest --ci $(JEST_FLAGS)

# Every test (jest.full.config.js), what CI (.ci/run) runs on every landing: also the matrix make test
# leaves out (the examples' commands, packaging and the release through local registries, the newest
# CLI, drift in four languages, import, crashes at random, the fast tier at other dates).
test-full: build typecheck tools python-sdk compat vitest registries .venv/.build system-deps
	scripts/jest --ci -c jest.full.config.js $(JEST_FLAGS)

# The fast tier (jest.unit.config.js): Node and the build only; no CLI, Postgres, browser or venv.
# check-vs-api's property runs 500 cases per resource here and in `make test`; its own default, 2000, in `make test-full`.
# The gate's fuzz (test/emulator/gate-fuzz.test.ts) likewise: 2000 spellings here and in `make test`, its own 10,000 in `make test-full`.
test-unit: build typecheck
	CHECK_VS_API_RUNS=$${CHECK_VS_API_RUNS:-500} GATE_FUZZ_RUNS=$${GATE_FUZZ_RUNS:-2000} scripts/jest --ci -c jest.unit.config.js $(JEST_FLAGS)

# Only what the demo uses: a tested pulumi from PATH, or the pinned one built (no sdkgen).
demo: build
	./scripts/demo-tools.sh
	node dist/scripts/demo.js

bench: build tools
	node --expose-gc dist/bench/run.js

# Cost against size, each row beside its baseline: writes bench/results/, bench/charts/ and the table in bench/README.md.
bench-scale: build tools
	node dist/bench/scale.js --readme $(BENCH_SCALE_FLAGS)

# Object bodies on disk: 2 GB through the aws CLI, the emulator's peak RSS and the journal's growth.
bench-s3: build
	node dist/bench/s3-disk.js

mutation: build
	npx stryker run $(STRYKER_FLAGS)

pack: build
	node dist/scripts/pack.js

# Every artifact of a release at one version (scripts/release.sh): the npm tarballs, the Python sdist
# and wheel, the Go module (as a module proxy serves it), the plugin archives with SHA256SUMS and the schema.
VERSION ?= $(shell node -p 'require("./package.json").version')
release: build python-sdk .venv/.build
	./scripts/build-sdkgen.sh
	./scripts/release.sh $(VERSION)

# PyPA's build frontend, for the release's sdist and wheel.
.venv/.build: .venv/.installed | $(WHEEL) .venv/.mypy
	.venv/bin/pip install --quiet --disable-pip-version-check build==1.6.1
	touch $@

emulator: build
	node dist/emulator/cli.js --port 4510

clean:
	rm -rf dist dist-plugin dist-release .tools node_modules .venv sdk/python/build sdk/python/*.egg-info
