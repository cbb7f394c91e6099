#!/bin/bash
# The null engine's ceiling (4k randread, QD32, 2 s) of two volbench binaries, alternating,
# six rounds: IOPS and the job's CPU %. A single run of the ceiling is bimodal on this 2-CPU
# machine (8.7M or 10.2M for the same binary), so a change is judged on the rounds together.
#   bash bench/ceiling_ab.sh OLD_BINARY NEW_BINARY
set -euo pipefail
old=${1:?give the old binary}
new=${2:?give the new binary}
for i in 1 2 3 4 5 6; do
  for b in "$old" "$new"; do
    v=$($b run --name=c --ioengine=null --rw=randread --bs=4k --iodepth=32 --size=1g --runtime=2 --time_based --output-format=fio-json -q --no-store 2>/dev/null | python3 -c "import json,sys;d=json.load(sys.stdin);j=d['jobs'][0];print(round(j['read']['iops']), round(j['usr_cpu']+j['sys_cpu'],1))")
    echo "$b $v"
  done
done
