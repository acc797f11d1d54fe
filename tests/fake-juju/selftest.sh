#!/usr/bin/env bash
# Self-test for fake_juju.py: every tool once against a temporary state,
# including the error exits, failure injection and the RS/FS call log.
# Usage: tests/fake-juju/selftest.sh   (exit 0 when everything passes)
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tools"
for t in status-set status-get juju-log config-get is-leader relation-ids relation-list \
    relation-get relation-set application-version-set state-get state-set state-delete \
    action-get action-set action-fail action-log network-get open-port close-port opened-ports \
    storage-list storage-get goal-state credential-get resource-get resolved-get \
    secret-add secret-get secret-info-get secret-ids secret-set secret-grant secret-revoke \
    secret-remove; do
  ln -s "$here/fake_juju.py" "$tmp/tools/$t"
done
export PATH="$tmp/tools:$PATH" FAKE_JUJU_STATE="$tmp/state.json" \
  FAKE_JUJU_LOG="$tmp/calls.log" FAKE_JUJU_DEBUG_LOG="$tmp/debug.log" \
  JUJU_CONTEXT_ID="gateway/0-install-00112233445566778899aabbccddeeff" JUJU_UNIT_NAME="gateway/0"
cat >"$FAKE_JUJU_STATE" <<'EOF'
{"leader": false,
 "config": {"kind": "ingress", "port": 8080},
 "relations": {"istio-pilot:1": {"app": "pilot", "units": ["pilot/1", "pilot/0"],
      "app-data": {"service-name": "pilot"}, "unit-data": {"pilot/0": {"addr": "10.0.0.1"}},
      "local-unit-data": {}, "local-app-data": {}},
   "istio-pilot:10": {"app": "other", "units": []},
   "peers:2": {"app": "gateway", "units": ["gateway/1"], "local-app-data": {"seed": "x"}}},
 "status": {"unit": null, "app": null}}
EOF

failures=0 calls=0
# expect CODE STDOUT STDERR-SUBSTRING -- COMMAND...  (stdout compared after $(...) trimming)
expect() {
  local code=$1 out=$2 err=$3; shift 4
  local got_out got_code got_err shown=${*//$'\n'/\\n}  # one line per command
  got_out=$("$@" 2>"$tmp/stderr"); got_code=$?
  got_err=$(cat "$tmp/stderr")
  calls=$((calls + 1))
  if [[ $got_code != "$code" || $got_out != "$out" || $got_err != *"$err"* ]]; then
    failures=$((failures + 1))
    printf 'FAIL %s\n  exit %s (want %s)\n  stdout %q (want %q)\n  stderr %q (want *%q*)\n' \
      "$shown" "$got_code" "$code" "$got_out" "$out" "$got_err" "$err"
  else
    printf 'ok   %s\n' "$shown"
  fi
}
# state EXPR: print a Python expression over the state `s`
state() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($1)" "$FAKE_JUJU_STATE"; }
mutate() { python3 -c "import json,sys; p=sys.argv[1]; s=json.load(open(p)); $1; json.dump(s, open(p,'w'))" "$FAKE_JUJU_STATE"; }
# end_hook WANT-EXIT commit|discard CONTEXT: what the harness does when a hook ends
end_hook() {
  local want=$1; shift
  local got
  "$here/fake_juju.py" "$@" 2>"$tmp/stderr"; got=$?
  same "fake_juju.py $* exits $want" "$got" "$want"
}
same() { # same WHAT GOT WANT
  if [[ $2 == "$3" ]]; then printf 'ok   %s\n' "$1"; else
    failures=$((failures + 1)); printf 'FAIL %s\n  got  %q\n  want %q\n' "$1" "$2" "$3"; fi
}

echo "# context, flags, unknown tools"
expect 1 "" "ERROR JUJU_CONTEXT_ID not set" -- env -u JUJU_CONTEXT_ID is-leader
expect 2 "" "ERROR option provided but not defined: --bogus" -- is-leader --bogus
expect 2 "" "ERROR option provided but not defined: -x" -- is-leader -x
expect 2 "" 'ERROR invalid value "xml" for option --format: unknown format "xml"' -- is-leader --format=xml
expect 2 "" 'ERROR unrecognized args: ["extra"]' -- is-leader extra
expect 1 "" "ERROR fake-juju does not implement resolved-get" -- resolved-get

echo "# is-leader"
expect 0 "false" "" -- is-leader --format=json
expect 0 "False" "" -- is-leader
expect 0 "false" "" -- is-leader --format json

echo "# status-set / status-get"
expect 0 "unknown" "" -- status-get
expect 0 '{"message":"","status":"unknown","status-data":{}}' "" -- status-get --include-data --format=json
expect 0 "" "" -- status-set --application=False active -- "all good"
expect 0 '{"message":"all good","status":"active","status-data":{}}' "" -- status-get --include-data --format=json --application=false
expect 0 '{"status":"active"}' "" -- status-get --format=json
expect 2 "" 'ERROR invalid status "error", expected one of [maintenance blocked waiting active]' -- status-set error oops
expect 2 "" 'ERROR unrecognized args: ["c"]' -- status-set active b c
expect 2 "" "ERROR invalid args" -- status-set
expect 1 "" "ERROR this unit is not the leader" -- status-set --application blocked no
expect 1 "" "ERROR finding application status: this unit is not the leader" -- status-get --application --format=json
expect 2 "" 'ERROR invalid value "yes" for option --application' -- status-set --application=yes active
mutate 's["leader"] = True'
expect 0 "" "" -- status-set --application=1 waiting "for pilot"
expect 0 '{"application-status":{"message":"for pilot","status":"waiting","status-data":{},"units":{"gateway/0":{"message":"all good","status":"active","status-data":{}}}}}' "" \
  -- status-get --include-data --format=json --application=True
same "state.status" "$(state 's["status"]')" "{'unit': {'status': 'active', 'message': 'all good'}, 'app': {'status': 'waiting', 'message': 'for pilot'}}"
mutate 's["leader"] = False'

echo "# juju-log"
expect 0 "" "" -- juju-log --log-level INFO -- "hello  world"
expect 0 "" "" -- juju-log --debug two words
expect 0 "" "" -- juju-log -l warn careful
expect 0 "" "" -- juju-log -lerror bad
expect 0 "" "" -- juju-log --log-level=nonsense still-info
expect 2 "" "ERROR no message specified" -- juju-log -l INFO
expect 2 "" "ERROR option needs an argument: --log-level" -- juju-log --log-level
expect 0 "" "" -- env JUJU_RELATION_ID=istio-pilot:1 juju-log joined
same "debug log" "$(cat "$FAKE_JUJU_DEBUG_LOG")" $'INFO hello  world\nDEBUG two words\nWARNING careful\nERROR bad\nINFO still-info\nINFO istio-pilot:1: joined'

echo "# config-get"
expect 0 '{"kind":"ingress","port":8080}' "" -- config-get --format=json
expect 0 "ingress" "" -- config-get kind
expect 0 "8080" "" -- config-get --format=json port
expect 0 "null" "" -- config-get --format=json missing
expect 0 "" "" -- config-get missing
expect 0 $'kind: ingress\nport: 8080' "" -- config-get -a
expect 2 "" 'ERROR cannot use argument --all together with key "kind"' -- config-get --all kind

echo "# relation-ids"
expect 0 '["istio-pilot:1","istio-pilot:10"]' "" -- relation-ids --format=json istio-pilot
expect 0 '[]' "" -- relation-ids --format=json nothing
expect 0 $'istio-pilot:1\nistio-pilot:10' "" -- relation-ids istio-pilot
expect 0 '["peers:2"]' "" -- env JUJU_RELATION=peers relation-ids --format=json
expect 2 "" "ERROR no endpoint name specified" -- relation-ids --format=json

echo "# relation-list"
expect 0 '["pilot/0","pilot/1"]' "" -- relation-list -r 1 --format=json
expect 0 '"pilot"' "" -- relation-list --format=json -r istio-pilot:1 --app
expect 0 '"pilot"' "" -- relation-list --format=json -r1 --app=true
expect 0 '[]' "" -- relation-list --relation=10 --format=json
expect 0 '["pilot/0","pilot/1"]' "" -- env JUJU_RELATION_ID=istio-pilot:1 relation-list --format=json
expect 2 "" 'ERROR invalid value "7" for option -r: relation not found' -- relation-list -r 7
expect 2 "" 'ERROR invalid value "db:x" for option --relation: invalid relation id' -- relation-list --relation db:x
expect 2 "" 'ERROR invalid value "=1" for option -r: invalid relation id' -- relation-list -r=1
expect 2 "" "ERROR no relation id specified" -- relation-list --format=json

echo "# relation-get"
expect 0 '{"addr":"10.0.0.1"}' "" -- relation-get --format=json -r 1 - pilot/0
expect 0 '{}' "" -- relation-get --format=json -r 1 - pilot/1
expect 0 '"10.0.0.1"' "" -- relation-get --format=json -r 1 addr pilot/0
expect 0 'null' "" -- relation-get --format=json -r 1 nope pilot/0
expect 0 '{"service-name":"pilot"}' "" -- relation-get --format=json -r 1 --app - pilot
expect 0 '{"service-name":"pilot"}' "" -- relation-get --format=json -r 1 --app - pilot/0
expect 0 '{"addr":"10.0.0.1"}' "" -- env JUJU_RELATION_ID=istio-pilot:1 JUJU_REMOTE_UNIT=pilot/0 relation-get --format=json
expect 0 'pilot' "" -- env JUJU_RELATION_ID=istio-pilot:1 JUJU_REMOTE_UNIT= JUJU_REMOTE_APP=pilot relation-get service-name
expect 2 "" 'ERROR expected unit name, got application name "pilot"' -- relation-get -r 1 - pilot
expect 2 "" "ERROR no unit or application specified" -- relation-get -r 1 --format=json
expect 2 "" "ERROR no relation id specified" -- relation-get - pilot/0
expect 2 "" 'ERROR unrecognized args: ["x"]' -- relation-get -r 1 - pilot/0 x
expect 1 "" "ERROR permission denied" -- relation-get --format=json -r 1 --app - gateway
expect 0 '{"seed":"x"}' "" -- relation-get --format=json -r peers:2 --app - gateway

echo "# relation-set"
expect 0 "" "" -- relation-set -r 1 a=1 b=2 'html=<a&b>'
expect 0 '{"a":"1","b":"2","html":"\u003ca\u0026b\u003e"}' "" -- relation-get --format=json -r 1 - gateway/0
expect 0 $'a: "1"\nb: "2"\nhtml: "<a&b>"' "" -- relation-get -r 1 - gateway/0
expect 0 "" "" -- relation-set -r 1 a= html=
expect 0 '{"b":"2"}' "" -- relation-get --format=json -r 1 - gateway/0
expect 0 "" "" -- sh -c 'printf "%s" "{\"x\": \"from-file\", \"y\": \"file\"}" | relation-set -r istio-pilot:1 --file - y=cli'
expect 0 '{"b":"2","x":"from-file","y":"cli"}' "" -- relation-get --format=json -r 1 - gateway/0
printf 'k: v\nq: "quoted"\n' >"$tmp/settings.yaml"
expect 0 "" "" -- relation-set -r 1 --file "$tmp/settings.yaml"
expect 0 '{"b":"2","k":"v","q":"quoted","x":"from-file","y":"cli"}' "" -- relation-get --format=json -r 1 - gateway/0
expect 0 "" '--format flag deprecated for command "relation-set"' -- relation-set -r 1 --format=json z=1
expect 2 "" 'ERROR key "a" specified more than once' -- relation-set -r 1 a=1 a=2
expect 2 "" 'ERROR expected "key=value", got "novalue"' -- relation-set -r 1 novalue
expect 1 "" "ERROR cannot write relation settings" -- relation-set -r 1 --app k=v
expect 1 "" "ERROR open $tmp/missing: no such file or directory" -- relation-set -r 1 --file "$tmp/missing"
mutate 's["leader"] = True'
expect 0 "" "" -- relation-set -r 1 --app=true k=v
expect 0 '{"k":"v"}' "" -- relation-get --format=json -r 1 --app - gateway
mutate 's["leader"] = False'

echo "# commit like Juju: relation-set is held until the hook ends"
bag() { state "json.dumps(s['relations']['$1'].get('$2'), sort_keys=True)"; }
ctx=$JUJU_CONTEXT_ID
same "nothing committed during the hook" "$(bag istio-pilot:1 local-unit-data)" "{}"
same "nothing committed during the hook (app)" "$(bag istio-pilot:1 local-app-data)" "{}"
expect 0 '{}' "" -- env JUJU_CONTEXT_ID=gateway/0-other-1 relation-get --format=json -r 1 - gateway/0
end_hook 0 commit "$ctx"
committed='{"b": "2", "k": "v", "q": "quoted", "x": "from-file", "y": "cli", "z": "1"}'
same "committed on exit 0" "$(bag istio-pilot:1 local-unit-data)" "$committed"
same "committed on exit 0 (app)" "$(bag istio-pilot:1 local-app-data)" '{"k": "v"}'
same "no pending area left" "$(state '"pending" in s')" "False"
expect 0 "" "" -- relation-set -r 1 b= new=1
expect 0 '{"k":"v","new":"1","q":"quoted","x":"from-file","y":"cli","z":"1"}' "" -- relation-get --format=json -r 1 - gateway/0
end_hook 0 discard "$ctx"
same "dropped when the hook fails" "$(bag istio-pilot:1 local-unit-data)" "$committed"
same "status-set acts at once, kept after a failed hook" "$(state 's["status"]["unit"]["message"]')" "all good"
expect 0 "" "" -- relation-set -r 1 stale=1
expect 0 'null' "" -- env JUJU_CONTEXT_ID=gateway/0-next-2 relation-get --format=json -r 1 stale gateway/0
expect 0 "" "" -- env JUJU_CONTEXT_ID=gateway/0-next-2 relation-set -r 1 fresh=1
end_hook 0 commit "$ctx"
same "ending another context changes nothing" "$(bag istio-pilot:1 local-unit-data)" "$committed"
same "a hook nobody ended is dropped by the next one" "$(bag istio-pilot:1 local-unit-data)" "$committed"
end_hook 0 commit gateway/0-next-2
same "the next hook's writes commit" "$(state "s['relations']['istio-pilot:1']['local-unit-data'].get('fresh')")" "1"
mutate 's["leader"] = True'
expect 0 "" "" -- relation-set -r peers:2 --app seed=y
expect 0 '{"seed":"y"}' "" -- relation-get --format=json -r peers:2 --app - gateway
mutate 's["leader"] = False'
expect 0 '{"seed":"x"}' "" -- relation-get --format=json -r peers:2 --app - gateway
end_hook 0 discard "$ctx"
same "peer app bag unchanged" "$(bag peers:2 local-app-data)" '{"seed": "x"}'
end_hook 2 bogus "$ctx"
end_hook 2 commit

echo "# state-get / state-set / state-delete"
expect 0 'null' "" -- state-get --format=json
expect 0 '' "" -- state-get
expect 0 'null' "" -- state-get --format=json -
expect 0 '""' "" -- state-get --format=json missing
expect 0 '' "" -- state-get missing
expect 1 "" 'ERROR "missing" not found' -- state-get --strict missing
expect 2 "" 'ERROR unrecognized args: ["x"]' -- state-get a x
expect 0 "" "" -- state-set a=1 b=two
printf '%s' '{"doc": "{\"v\": 1}", "b": "file"}' >"$tmp/state-in.json"
expect 0 "" "" -- sh -c 'state-set --file - b=cli <"$1"' sh "$tmp/state-in.json"
printf 'y: "from yaml"\n' >"$tmp/state-in.yaml"
expect 0 "" "" -- state-set --file "$tmp/state-in.yaml"
expect 0 '{"a":"1","b":"cli","doc":"{\"v\": 1}","y":"from yaml"}' "" -- state-get --format=json
expect 0 '"1"' "" -- state-get --format=json a
expect 0 '1' "" -- state-get a
expect 0 "" "" -- state-set e=
expect 0 '""' "" -- state-get --format=json --strict e
expect 0 "" "" -- state-delete a
expect 0 "" "" -- state-delete never-set
expect 0 "" "" -- state-delete
expect 2 "" 'ERROR unrecognized args: ["b"]' -- state-delete a b
expect 1 "" 'ERROR "a" not found' -- state-get --strict a
expect 2 "" 'ERROR key "b" specified more than once' -- state-set b=1 b=2
expect 2 "" 'ERROR expected "key=value", got "novalue"' -- state-set novalue
expect 1 "" "ERROR open $tmp/missing: no such file or directory" -- state-set --file "$tmp/missing"
expect 0 "" "" -- state-set "$(printf 'k%.0s' {1..256})=at-the-limit"
expect 1 "" "ERROR max allowed key length (256) exceeded" -- state-set "$(printf 'k%.0s' {1..257})=v"
expect 1 "" "ERROR max allowed value length (65536) exceeded" -- state-set ok=1 "big=$(printf '%065537d' 0)"
expect 0 '""' "" -- state-get --format=json ok
same "held until the hook ends" "$(state 's.get("charm-state")')" "None"
expect 0 'null' "" -- env JUJU_CONTEXT_ID=gateway/0-other-3 state-get --format=json
end_hook 0 commit "$ctx"
charm_state() { state 'json.dumps({k: v for k, v in s.get("charm-state", {}).items() if len(k) < 200}, sort_keys=True)'; }
same "committed on exit 0" "$(charm_state)" '{"b": "cli", "doc": "{\"v\": 1}", "e": "", "y": "from yaml"}'
expect 0 'cli' "" -- env JUJU_CONTEXT_ID=gateway/0-other-4 state-get b
expect 0 "" "" -- state-delete b
expect 0 '""' "" -- state-get --format=json b
end_hook 0 discard "$ctx"
same "dropped when the hook fails" "$(charm_state)" '{"b": "cli", "doc": "{\"v\": 1}", "e": "", "y": "from yaml"}'
mutate 's["max-charm-state-size"] = 300'
expect 0 "" "" -- state-set more=0123456789
end_hook 1 commit "$ctx"
same "over the total quota: the hook fails, nothing kept" "$(cat "$tmp/stderr")" "ERROR committing requested changes failed: max allowed charm state size (300) exceeded"
same "over the total quota: state unchanged" "$(charm_state)" '{"b": "cli", "doc": "{\"v\": 1}", "e": "", "y": "from yaml"}'
same "over the total quota: pending dropped" "$(state '"pending" in s')" "False"
mutate 'del s["max-charm-state-size"]'

echo "# application-version-set"
expect 0 "" "" -- application-version-set -- 1.2.3
same "state.application-version" "$(state 's["application-version"]')" "1.2.3"
expect 2 "" "ERROR no version specified" -- application-version-set
expect 2 "" 'ERROR unrecognized args: ["b"]' -- application-version-set a b

echo "# action-get / action-set / action-fail / action-log"
# In a hook: a run-time error, after the arguments were checked.
expect 1 "" "ERROR not running an action" -- action-set a=1
expect 1 "" "ERROR not running an action" -- action-get --format=json
expect 1 "" "ERROR not running an action" -- action-fail
expect 1 "" "ERROR not running an action" -- action-log hello
expect 2 "" 'ERROR key "A" must start' -- action-set A=1
export JUJU_ACTION_NAME=backup
expect 0 '{}' "" -- action-get --format=json
mutate 's["action-params"] = {"target": "db", "opts": {"level": 3, "fast": True}}'
expect 0 '{"opts":{"fast":true,"level":3},"target":"db"}' "" -- action-get --format=json
expect 0 $'opts: {fast: true, level: 3}\ntarget: db' "" -- action-get
expect 0 '3' "" -- action-get --format=json opts.level
expect 0 'db' "" -- action-get target
expect 0 'null' "" -- action-get --format=json opts.missing
expect 0 'null' "" -- action-get --format=json target.deeper
expect 0 '' "" -- action-get missing
expect 2 "" 'ERROR unrecognized args: ["b"]' -- action-get a b
expect 0 "" "" -- action-set 'a=b=c' 'x-y.z0=hello world' e= $'multi=two\nlines'
expect 0 "" "" -- action-set a=again
expect 0 "" "" -- action-set
results() { state 'json.dumps(s["action-results"], sort_keys=True)'; }
same "action-results" "$(results)" '{"a": "again", "e": "", "multi": "two\nlines", "x-y.z0": "hello world"}'
expect 2 "" 'ERROR argument "noequals" must be of the form key...=value' -- action-set noequals
expect 2 "" 'ERROR key "foo-" must start and end with lowercase alphanumeric' -- action-set ok=1 foo-=1
expect 2 "" 'ERROR key ""' -- action-set ok=1 foo..bar=1
expect 2 "" 'ERROR key "a\n"' -- action-set $'a\n=1'
expect 2 "" 'ERROR cannot set reserved action key "stdout"' -- action-set ok=1 stdout=1
expect 2 "" 'ERROR cannot set reserved action key "stderr-encoding"' -- action-set a.stderr-encoding.x=1
same "nothing set by a refused call" "$(results)" '{"a": "again", "e": "", "multi": "two\nlines", "x-y.z0": "hello world"}'
expect 0 "" "" -- action-set x-y=flat a.b=1
same "dotted keys nest" "$(results)" '{"a.b": "1", "e": "", "multi": "two\nlines", "x-y": "flat"}'
expect 0 "" "" -- action-fail
same "action-failed" "$(state 's["action-failed"]')" "action failed without reason given, check action for errors"
expect 0 "" "" -- action-fail -- "disk full"
same "action-failed" "$(state 's["action-failed"]')" "disk full"
expect 2 "" 'ERROR unrecognized args: ["b"]' -- action-fail a b
expect 0 "" "" -- action-log -- progress "50%"
expect 2 "" "ERROR no message specified" -- action-log
same "action-log" "$(tail -n 1 "$FAKE_JUJU_DEBUG_LOG")" "ACTION progress 50%"
unset JUJU_ACTION_NAME

echo "# ports: held until the hook ends, applied at commit (§2.14)"
expect 0 "" "" -- open-port 80
expect 0 "" "" -- open-port --endpoints db,web 8000-8100/UDP
expect 0 "" "" -- close-port icmp
expect 2 "" "ERROR invalid port range \"0/tcp\"" -- open-port 0/tcp
expect 2 "" "ERROR invalid port range \"90-80\"" -- open-port 90-80
expect 2 "" "ERROR no port or range specified" -- open-port
expect 0 "[]" "" -- opened-ports --format=json
same "pending ports" "$(state 's["pending"]["ports"]')" "[['open', '80/tcp', None], ['open', '8000-8100/udp', ['db', 'web']], ['close', 'icmp', None]]"
end_hook 0 commit "$JUJU_CONTEXT_ID"
expect 0 '["80/tcp","8000-8100/udp"]' "" -- opened-ports --format=json
expect 0 '["80/tcp (*)","8000-8100/udp (db, web)"]' "" -- opened-ports --format=json --endpoints
expect 0 "" "" -- close-port 80/tcp
end_hook 0 discard "$JUJU_CONTEXT_ID"
expect 0 '["80/tcp","8000-8100/udp"]' "" -- opened-ports --format=json

echo "# storage, network-get, goal-state, credential-get, resource-get (§2.15-§2.19)"
mutate 's["storage"] = {"data/1": {"kind": "block", "location": "/dev/vdb"}, "data/0": {"kind": "filesystem", "location": "/srv/data"}, "logs/0": {"kind": "filesystem", "location": "/var/log/x"}}'
expect 0 '["data/0","data/1","logs/0"]' "" -- storage-list --format=json
expect 0 '["data/0","data/1"]' "" -- storage-list --format=json data
expect 0 '{"kind":"filesystem","location":"/srv/data"}' "" -- storage-get --format=json -s data/0
expect 0 "/dev/vdb" "" -- storage-get -s data/1 location
expect 2 "" "ERROR no storage instance specified" -- storage-get --format=json
expect 2 "" "ERROR invalid value \"data/9\" for option -s: storage instance \"data/9\" not found" -- storage-get -s data/9
expect 1 "" "ERROR invalid storage attribute \"size\"" -- storage-get -s data/0 size
expect 0 '{"kind":"block","location":"/dev/vdb"}' "" -- env JUJU_STORAGE_ID=data/1 storage-get --format=json
mutate 's["networks"] = {"db": {"bind-addresses": [{"mac-address": "00:16:3e:aa", "interface-name": "eth0", "addresses": [{"hostname": "", "value": "10.0.0.5", "cidr": "10.0.0.0/24"}]}], "egress-subnets": [], "ingress-addresses": ["10.0.0.5"]}}'
expect 0 '{"bind-addresses":[{"addresses":[{"cidr":"10.0.0.0/24","hostname":"","value":"10.0.0.5"}],"interface-name":"eth0","mac-address":"00:16:3e:aa"}],"ingress-addresses":["10.0.0.5"]}' "" -- network-get --format=json -r 1 -- db
expect 0 '"10.0.0.5"' "" -- network-get --format=json db --ingress-address
expect 1 "" "ERROR no network config found for binding \"nope\"" -- network-get --format=json nope
expect 2 "" "ERROR no arguments specified" -- network-get --format=json
expect 2 "" "ERROR invalid value \"9\" for option -r: relation not found" -- network-get -r 9 db
mutate 's["goal-state"] = {"units": {"gateway/0": {"status": "active", "since": "2026-01-04 06:29:46Z"}}}'
expect 0 '{"relations":{},"units":{"gateway/0":{"since":"2026-01-04 06:29:46Z","status":"active"}}}' "" -- goal-state --format=json
expect 2 "" "ERROR invalid value \"smart\" for option --format" -- goal-state --format=smart
expect 1 "" "ERROR cannot access cloud credentials: permission denied" -- credential-get --format=json
mutate 's["trusted"] = True; s["credential"] = {"type": "lxd", "name": "localhost"}'
expect 0 '{"name":"localhost","type":"lxd"}' "" -- credential-get --format=json
mutate 's["resources"] = {"bin": "/var/lib/juju/resources/bin.tgz"}'
expect 0 "/var/lib/juju/resources/bin.tgz" "" -- resource-get -- bin
expect 1 "" "ERROR could not download resource: resource \"nope\" not found" -- resource-get nope
expect 2 "" "ERROR missing required resource name" -- resource-get

echo "# failure injection"
mutate 's["fail"] = {"relation-get": {"code": 1, "stderr": "ERROR permission denied"}, "is-leader": {"code": 0, "stdout": "maybe\n"}}'
expect 1 "" "ERROR permission denied" -- relation-get --format=json -r 1 - pilot/0
expect 0 "maybe" "" -- is-leader --format=json
mutate 'del s["fail"]'
expect 0 "false" "" -- is-leader --format=json

echo "# secrets: content from files, held until the hook ends"
printf 's3cret' >"$tmp/pw"
uri=secret:fake0000000000000000
expect 1 "" "ERROR this unit is not the leader" -- secret-add password=x
expect 2 "" 'ERROR invalid key "PW"' -- secret-add --owner unit PW=x
expect 0 "$uri" "" -- secret-add --owner unit --label db-pass "password#file=$tmp/pw"
expect 0 '{"password":"s3cret"}' "" -- secret-get --format=json "$uri"
expect 0 '{"password":"s3cret"}' "" -- secret-get --format=json --label db-pass
expect 1 "" 'ERROR secret with label "nope" not found' -- secret-get --format=json --label nope
expect 2 "" "ERROR require either a secret URI or label" -- secret-get --format=json
same "held until the hook ends" "$(state 's.get("secrets")')" "None"
end_hook 0 commit "$ctx"
same "committed on exit 0" "$(state 'sorted(s["secrets"])')" "['$uri']"
expect 0 "" "" -- secret-set "$uri" password=new
expect 0 '{"fake0000000000000000":{"label":"db-pass","owner":"unit","revision":1}}' "" -- secret-info-get --format=json --label db-pass
end_hook 0 commit "$ctx"
expect 0 '{"fake0000000000000000":{"label":"db-pass","owner":"unit","revision":2}}' "" -- secret-info-get --format=json "$uri"
expect 0 '{"password":"new"}' "" -- secret-get --format=json "$uri"
expect 1 "" 'ERROR secret "secret:missing" not found' -- secret-remove secret:missing
expect 2 "" "ERROR missing relation or application or unit" -- secret-grant "$uri"
expect 0 "" "" -- secret-remove "$uri"
end_hook 0 discard "$ctx"
expect 0 "[\"${uri#secret:}\"]" "" -- secret-ids --format=json
expect 0 "" "" -- secret-remove "$uri"
end_hook 0 commit "$ctx"
expect 0 "[]" "" -- secret-ids --format=json

echo "# call log (RS/FS records)"
log=$(python3 - "$FAKE_JUJU_LOG" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read().decode()
assert data.endswith("\x1c"), "log must end with FS"
calls = [c.split("\x1e") for c in data.split("\x1c")[:-1]]
print(len(calls))
print(calls[0])
print([c for c in calls if c[0] == "juju-log"][0])
EOF
)
# `calls` counts expect() runs; `env`/`sh` wrappers call the tool once each.
same "call log" "$log" "$calls
['is-leader']
['juju-log', '--log-level', 'INFO', '--', 'hello  world']"

echo
if [[ $failures == 0 ]]; then echo "selftest: all passed"; else echo "selftest: $failures FAILED"; exit 1; fi
