#!/usr/bin/env bash
# Debian packages some tests drive the platform with (hvac for the Vault-compatible API; kcat,
# confluent-kafka, kafka-python and Go's Sarama with a SCRAM library for the streaming brokers;
# chromium for the console). A test whose package is missing skips with one loud line, so a machine
# without apt still runs the rest.
set -uo pipefail

missing=()
/usr/bin/python3 -c 'import hvac' 2>/dev/null || missing+=(python3-hvac)
command -v kcat >/dev/null 2>&1 || missing+=(kcat)
/usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null || missing+=(python3-confluent-kafka)
/usr/bin/python3 -c 'import kafka' 2>/dev/null || missing+=(python3-kafka)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Shopify/sarama ] || missing+=(golang-github-shopify-sarama-dev)
[ -d /usr/share/gocode/src/github.com/xdg-go/scram ] || missing+=(golang-github-xdg-go-scram-dev)
if [ ${#missing[@]} -eq 0 ]; then
  echo "test packages: present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
  echo "test packages: cannot install ${missing[*]} here (needs apt-get as root); their tests will skip"
  exit 0
fi
echo "test packages: installing ${missing[*]}"
apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
  echo "test packages: installing ${missing[*]} failed; their tests will skip"
exit 0
