# sftools - plain GNU make.
#
#   make            library and programs into bin/
#   make demo       install missing packages, build, run the main job
#   make check      install missing packages, build, run every test
#   make test       build and run every test (no install step)
#   make test-fast  the same without the slow tier
#                   (with SANITIZE_PASS=1, as in CI, a second pass of the
#                   same tests runs under ASan+UBSan)
#   make asan       build with AddressSanitizer and run the tests
#   make ubsan      build with UndefinedBehaviorSanitizer and run the tests
#   make fuzz       run every libFuzzer target (FUZZ_SECONDS=N each)
#   make bench      run the benchmarks (never part of check)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Build directories: build/ (objects), bin/ (programs).  A sanitizer build
# goes to build/<name>/ with its own bin/.

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
BUILD ?= build
BIN ?= bin
SANFLAGS ?=
FUZZ_SECONDS ?= 60
SHARED ?= $(abspath ../shared)

# libxml2 and libgvc are compiled against but not linked: the code that
# calls them loads them on first use (formats/base/dynlib.h), because
# loading them took two thirds of every run's start-up.  Their sonames are
# read from the .so files the -dev packages install.
LINK_PKGS = zlib libisal json-c libxxhash gmp libdw yajl
LAZY_PKGS = libxml-2.0 libgvc
PKGS = $(LINK_PKGS) $(LAZY_PKGS)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
soname = $(shell objdump -p $(shell pkg-config --variable=libdir $(1) \
	   2>/dev/null)/$(2).so 2>/dev/null | awk '$$1 == "SONAME" {print $$2}')
XML_SONAME := $(call soname,libxml-2.0,libxml2)
GVC_SONAME := $(call soname,libgvc,libgvc)

WARN = -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
       -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
# Each room sees only the headers it may use, so the build itself keeps
# the layering one way (formats/README.md draws it):
#
#   formats/base/   the infrastructure: context and errors, I/O, hashing,
#                   strings, libraries loaded on first use; sees itself only
#   formats/model/  the profile model; sees base
#   analyze/        the analyses and reports; sees the model
#   sampler-core/   the capture engine; sees the model
#   formats/        the format table, load, save, the parallel reader, the
#                   formats (one file each, or a sub-folder each) and util/;
#                   sees the model and analyze (the sample writer draws the
#                   sample report)
#   cmd/            the programs; see everything
#
# Only formats/ and cmd/ see the format table (format.h).  tests/t-layers.sh
# checks the same law on the built objects' symbols, which also sees calls
# made through the table that an include rule cannot.
FMT_DIRS = collapsed json perf pprof svg html
INC_BASE = -Iformats/base
INC_MODEL = $(INC_BASE) -Iformats/model
INC_FORMATS = $(INC_MODEL) -Iformats -Iformats/util -Ianalyze
INC = $(INC_FORMATS) $(FMT_DIRS:%=-Iformats/%) -Isampler-core
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(DEFS) $(WARN) $(CFLAGS) $(SANFLAGS) \
	     -I$(BUILD) $(INC) $(PKG_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LIBS = $(PKG_LIBS) -lm -lpthread -ldl

LIB_SRC = $(sort $(wildcard formats/base/*.c formats/model/*.c formats/*.c \
	    formats/util/*.c $(FMT_DIRS:%=formats/%/*.c) analyze/*.c \
	    sampler-core/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ = $(BUILD)/cmd/cli.o $(BUILD)/cmd/opt.o
PROGS = sfconv sfanalyze sfcapture
PROG_BIN = $(PROGS:%=$(BIN)/%)
UNIT_SRC = $(sort $(wildcard tests/unit/t_*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FMT_SRC = $(sort $(wildcard formats/fmt_*.c $(FMT_DIRS:%=formats/%/fmt_*.c)))

.PHONY: all deps demo check test test-fast asan ubsan fuzz fuzz-build bench install \
	clean unit-tests

all: $(PROG_BIN) unit-tests

# The format table: one SF_FORMAT(name) per sf_format_NAME definition.
# Each format's entry is in formats/fmt_NAME.c, or for a format of several
# files in formats/DIR/fmt_NAME.c beside the rest of it.
$(BUILD)/table.gen.h: $(FMT_SRC) Makefile
	@mkdir -p $(BUILD)
	@sed -n 's/^const struct sf_format sf_format_\([a-z0-9_]*\) =.*/SF_FORMAT(\1)/p' \
		$(FMT_SRC) | LC_ALL=C sort > $@.tmp && mv $@.tmp $@

$(BUILD)/formats/format.o: $(BUILD)/table.gen.h

# The HTML report's page sources, as byte arrays (xxd -i, made static so
# the library exports nothing without the sf_ prefix), and the sha256
# of the script and style the page's Content-Security-Policy allows.
HTML_SRC = formats/html/report.css formats/html/report.js \
	   formats/html/report.html
csp_hash = sha256sum $(1) | cut -c1-64 | xxd -r -p | base64 -w0
$(BUILD)/html.gen.h: $(HTML_SRC) Makefile
	@mkdir -p $(BUILD)
	@{ for f in $(HTML_SRC); do (cd $$(dirname $$f) && xxd -i $$(basename $$f)) || exit 1; done | \
	    sed 's/^unsigned /static const unsigned /'; \
	  echo "#define HTML_JS_SHA256 \"$$($(call csp_hash,formats/html/report.js))\""; \
	  echo "#define HTML_CSS_SHA256 \"$$($(call csp_hash,formats/html/report.css))\""; \
	} > $@.tmp && mv $@.tmp $@

$(BUILD)/formats/html/fmt_html.o: $(BUILD)/html.gen.h

$(BUILD)/formats/util/xmllib.o: \
	DEFS = $(if $(XML_SONAME),-DSF_XML_SONAME='"$(XML_SONAME)"')
$(BUILD)/analyze/cgdot.o: \
	DEFS = $(if $(GVC_SONAME),-DSF_GVC_SONAME='"$(GVC_SONAME)"')

$(BUILD)/formats/base/%.o: INC = $(INC_BASE)
$(BUILD)/formats/model/%.o: INC = $(INC_MODEL)
$(BUILD)/formats/%.o: INC = $(INC_FORMATS)
$(foreach d,$(FMT_DIRS),$(eval \
  $(BUILD)/formats/$(d)/%.o: INC = $(INC_FORMATS) -Iformats/$(d)))
$(BUILD)/analyze/%.o: INC = $(INC_MODEL) -Ianalyze
$(BUILD)/sampler-core/%.o: INC = $(INC_MODEL) -Isampler-core

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libsftools.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/%: $(BUILD)/cmd/%.o $(CLI_OBJ) $(BUILD)/libsftools.a
	@mkdir -p $(BIN)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(CLI_OBJ) $(BUILD)/libsftools.a $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libsftools.a tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libsftools.a $(LIBS)

unit-tests: $(UNIT_BIN)

# The replay driver includes the fuzz target's source.
$(BUILD)/tests/t_fuzz_replay: tests/fuzz/fuzz_read.c

-include $(LIB_OBJ:.o=.d) $(wildcard $(BUILD)/cmd/*.d)

# Install missing Debian packages (apt-get; sudo when not root).
deps:
	@sh scripts/install-deps.sh build

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

test: all
	@SF_BIN=$(abspath $(BIN)) SF_UNIT=$(abspath $(BUILD)/tests) \
	  SHARED=$(SHARED) sh tests/run.sh

# The fast tier alone: every test but the scripts marked "# tier: slow"
# (long captures, browsers, large inputs), which `make check` runs too.
test-fast: all
	@SF_TIER=fast SF_BIN=$(abspath $(BIN)) SF_UNIT=$(abspath $(BUILD)/tests) \
	  SHARED=$(SHARED) sh tests/run.sh

check: deps
	@sh scripts/install-deps.sh test
	@$(MAKE) --no-print-directory all
	@if [ -n "$(SANITIZE_PASS)" ]; then \
	  $(MAKE) --no-print-directory BUILD=build/san BIN=build/san/bin \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	    all >/dev/null || exit 1; \
	  SF_PASSES="plain:$(abspath $(BIN)):$(abspath $(BUILD)/tests) san:$(abspath build/san/bin):$(abspath build/san/tests)" \
	    SHARED=$(SHARED) sh tests/run.sh; \
	else \
	  SF_BIN=$(abspath $(BIN)) SF_UNIT=$(abspath $(BUILD)/tests) \
	    SHARED=$(SHARED) sh tests/run.sh; \
	fi

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/bin \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=address -fno-sanitize-recover=all" all
	@SF_BIN=$(abspath build/asan/bin) SF_UNIT=$(abspath build/asan/tests) \
	  SHARED=$(SHARED) sh tests/run.sh

ubsan:
	@$(MAKE) --no-print-directory BUILD=build/ubsan BIN=build/ubsan/bin \
	  CFLAGS="-O1 -g" \
	  SANFLAGS="-fsanitize=undefined -fno-sanitize-recover=all" all
	@SF_BIN=$(abspath build/ubsan/bin) SF_UNIT=$(abspath build/ubsan/tests) \
	  SHARED=$(SHARED) sh tests/run.sh

# libFuzzer targets (clang): build/fuzz/fuzz_NAME for every format that
# reads ('r' in `sfconv --list-formats`, so a new format gets a target with
# no edit here), build/fuzz/fuzz_detect, build/fuzz/fuzz_parallel (-j1
# against -j2) and build/fuzz/fuzz_roundtrip-NAME for every format that
# reads and writes ('rw').  The library is built with the same sanitizers
# into build/fuzz/.  tests/fuzz/run.sh runs them.
FUZZ_BUILD = build/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz-build: $(BIN)/sfconv
	@$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) \
	  BIN=$(FUZZ_BUILD)/bin CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
	  $(FUZZ_BUILD)/libsftools.a $(FUZZ_BUILD)/table.gen.h
	@for f in $$($(BIN)/sfconv --list-formats | awk '$$2 ~ /^r/ {print $$1} \
	    $$2 == "rw" {print "roundtrip-" $$1}') detect parallel; do \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
	    $(FUZZ_SAN) -fsanitize=fuzzer -I$(FUZZ_BUILD) $(INC) \
	    $(PKG_CFLAGS) -DFUZZ_FORMAT="\"$$f\"" tests/fuzz/fuzz_read.c \
	    $(FUZZ_BUILD)/libsftools.a $(LIBS) -o $(FUZZ_BUILD)/fuzz_$$f \
	    || exit 1; \
	done

fuzz:
	@sh scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BUILD)

bench: all
	@sh bench/run.sh

# The public headers of the three library areas: the model, the analyses
# and the capture engine.  They include each other by bare name, so they
# install side by side under include/sftools/.
PUBLIC_H = formats/base/sf.h formats/base/io.h formats/model/profile.h \
	   formats/model/diff.h formats/format.h formats/load.h \
	   formats/save.h analyze/analyze.h \
	   sampler-core/capture.h

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/include/sftools \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(PROG_BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/libsftools.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(PUBLIC_H) $(DESTDIR)$(PREFIX)/include/sftools/
	install -m 644 $(wildcard docs/*.1) \
	  $(DESTDIR)$(PREFIX)/share/man/man1/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/^#define SF_VERSION "\(.*\)"/\1/p' formats/base/sf.h)|g' \
	  -e 's|@REQUIRES@|$(PKGS)|g' sftools.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sftools.pc

clean:
	rm -rf build bin
