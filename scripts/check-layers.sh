#!/usr/bin/env bash
# Checks the layering of the sources (README, "How the code is laid out"): inside a module, a folder uses only
# the folders listed before it. A "use" is a type or top-level function declared in another folder
# and named in a file's code (comments are not code). Also: no `@_exported import`, and the
# engine (GrammarEvolution) knows nothing of glucose.
# Prints each violation as  file: uses Name (Folder, above this folder); exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

# module : folders from the bottom up
LAYERS=(
  "GlucoModel: Base PatientLog Physiology Import Store Source Series Evaluation Model Training Prediction Dosing Nightly Report"
  "GrammarEvolution: Genome Program Grammar Mapping Evaluator Fitness Search"
)

status=0
fail() { echo "$1"; status=1; }

# Top-level declarations (not private) of a folder: "Name" per line.
declarations() {
  grep -rhoE '^(public |internal |package |@usableFromInline )*(final )?(struct|enum|class|protocol|typealias|actor|func) [A-Za-z_][A-Za-z0-9_]*' \
    --include='*.swift' "$1" 2>/dev/null | awk '{print $NF}' | sort -u
}

# The identifiers a file's code names, comments and string contents removed, but the code of a
# string's interpolations kept ("\(ARXRidge.fixed(r).text)" names ARXRidge).
identifiers() {
  perl -pe 's{//.*$}{}; s{"((?:[^"\\]|\\.)*)"}{join " ", $1 =~ /\\\(((?:[^()]|\([^()]*\))*)\)/g}ge' "$1" \
    | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u
}

for entry in "${LAYERS[@]}"; do
  module=${entry%%:*}
  read -r -a folders <<< "${entry#*:}"
  root="Sources/$module"
  # Every folder of the module must have a place in the order.
  for dir in "$root"/*/; do
    name=$(basename "$dir")
    [[ $name == Resources ]] && continue
    [[ " ${folders[*]} " == *" $name "* ]] || fail "$root/$name: folder not in the layer order of scripts/check-layers.sh"
  done
  declare -A owner=()
  for ((i = 0; i < ${#folders[@]}; i++)); do
    while read -r n; do
      [[ -n $n ]] && owner[$n]=$i
    done < <(declarations "$root/${folders[$i]}")
  done
  for ((i = 0; i < ${#folders[@]}; i++)); do
    folder=${folders[$i]}
    [[ -d $root/$folder ]] || continue
    while IFS= read -r -d '' file; do
      while read -r id; do
        j=${owner[$id]:-}
        if [[ -n $j && $j -gt $i ]]; then
          fail "$file: uses $id (${folders[$j]}, above $folder)"
        fi
      done < <(identifiers "$file")
    done < <(find "$root/$folder" -name '*.swift' -print0)
  done
  unset owner
done

if grep -rn '@_exported' --include='*.swift' Sources; then fail "no @_exported import: import what a file uses"; fi
if grep -rniE '\b(glucose|insulin|mg/?dl|carb)' --include='*.swift' Sources/GrammarEvolution; then
  fail "Sources/GrammarEvolution mentions glucose: the engine knows nothing of it"
fi
exit $status
