#!/usr/bin/env bash
# Lints and renders charts/cloudplane with the default and a non-default set of values, and
# checks what must never change: a missing database or platform key fails the render, unknown
# values are refused, the jobs get no platform key, and no RBAC rule grants every verb. One line per check; exits non-zero on the first
# failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

helm="$root/.tools/bin/helm"
chart=charts/cloudplane
database_url=postgres://u@db:5432/cloudplane
# A throwaway key: 32 bytes of base64, as the platform key must be.
platform_key=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
non_default="$chart/ci/non-default-values.yaml"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if [[ ! -x "$helm" ]]; then
  npm run --silent tools
fi

ok() { printf 'ok   %s\n' "$1"; }
fail() {
  printf 'FAIL %s\n' "$1" >&2
  if [[ -s "$out/last" ]]; then sed 's/^/     /' "$out/last" >&2; fi
  exit 1
}
# Runs a command, keeping its output for the failure message.
check() {
  local name="$1"
  shift
  if "$@" >"$out/last" 2>&1; then ok "$name"; else fail "$name"; fi
}
# Runs a command that must fail with output containing the given text.
check_refused() {
  local name="$1" expected="$2"
  shift 2
  if "$@" >"$out/last" 2>&1; then fail "$name (rendered, expected a refusal)"; fi
  if grep -qF -- "$expected" "$out/last"; then ok "$name"; else fail "$name (no \"$expected\" in the error)"; fi
}

required=(--set "database.url=$database_url" --set "platformKey.value=$platform_key")

check 'helm lint' "$helm" lint "$chart" "${required[@]}"
check 'helm lint --strict (defaults)' "$helm" lint --strict "$chart" "${required[@]}"
check 'helm lint --strict (non-default values)' "$helm" lint --strict "$chart" -f "$non_default"

check 'helm template (defaults)' "$helm" template cloudplane "$chart" "${required[@]}"
cp "$out/last" "$out/default.yaml"
check 'helm template (non-default values)' "$helm" template cloudplane "$chart" -f "$non_default"
cp "$out/last" "$out/non-default.yaml"

check_refused 'refuses to render without a database' 'database: cluster mode needs PostgreSQL' \
  "$helm" template cloudplane "$chart" --set "platformKey.value=$platform_key"
check_refused 'refuses to render without the platform key' \
  'platformKey: cluster mode needs the platform key CLOUDPLANE_KMS_KEY' \
  "$helm" template cloudplane "$chart" --set "database.url=$database_url"
check_refused 'refuses both platformKey.value and platformKey.existingSecret' 'not both' \
  "$helm" template cloudplane "$chart" "${required[@]}" --set platformKey.existingSecret=key
check_refused 'refuses both database.url and database.existingSecret' 'not both' \
  "$helm" template cloudplane "$chart" "${required[@]}" --set database.existingSecret=db
check_refused 'refuses an unknown value' "additional properties 'bogus' not allowed" \
  "$helm" template cloudplane "$chart" "${required[@]}" --set bogus=1
check_refused 'refuses an unknown value inside a block' "additional properties 'replica' not allowed" \
  "$helm" template cloudplane "$chart" "${required[@]}" --set apiserver.replica=3

# The CronJobs decrypt nothing: the platform key must reach the API server and the operator only.
for rendering in default non-default; do
  if ! grep -q 'CLOUDPLANE_KMS_KEY' "$out/$rendering.yaml"; then
    : >"$out/last"
    fail "the platform key reaches the API server and the operator ($rendering values)"
  fi
  awk '/^kind: /{ kind = $2 } kind == "CronJob" && /CLOUDPLANE_KMS_KEY/' "$out/$rendering.yaml" >"$out/last"
  if [[ -s "$out/last" ]]; then fail "no CronJob gets the platform key ($rendering values)"; fi
  ok "no CronJob gets the platform key ($rendering values)"
done

# Every rendered verbs list, in flow or block style, as one line each.
verbs() {
  awk '
    function dash_column() { return match($0, /^ *- /) ? RLENGTH - 1 : 0 }
    collecting && dash_column() >= key_column { line = line " " $0; next }
    collecting { print line; collecting = 0 }
    /^ *(- )?verbs: *\[/ { print; next }
    /^ *(- )?verbs: *$/ { collecting = 1; key_column = index($0, "verbs"); line = "verbs:"; next }
    END { if (collecting) print line }
  ' "$1"
}
for rendering in default non-default; do
  verbs "$out/$rendering.yaml" >"$out/verbs"
  if [[ ! -s "$out/verbs" ]]; then
    : >"$out/last"
    fail "RBAC rules found ($rendering values)"
  fi
  if grep -q "\*" "$out/verbs"; then
    cp "$out/verbs" "$out/last"
    fail "no RBAC rule grants every verb ($rendering values)"
  fi
  ok "no RBAC rule grants every verb ($rendering values)"
done

if grep -qE "resources: \[['\"]?\*['\"]?\]" "$out/default.yaml"; then
  grep -nE "resources: \[['\"]?\*['\"]?\]" "$out/default.yaml" >"$out/last"
  fail 'no RBAC rule grants every resource'
fi
ok 'no RBAC rule grants every resource'

echo 'chart checks passed'
