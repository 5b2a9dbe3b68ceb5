# Source this file (`. scripts/use-node.sh`) to run the project on Node >= 22.12 when the
# machine's Node is older. It brings the Node named in .node-version from the npm registry
# (the `node-linux-<arch>` package, checked against the sha512 pinned below) into .node/
# (git-ignored) and puts it first on PATH for this shell. npm itself is the machine's: its
# scripts run on whatever `node` is first on PATH, so nothing in package.json points into .node/.
# With Node >= 22.12 already on PATH it changes nothing. .ci/run sources it; so can you.
#
#   . scripts/use-node.sh && npm ci && npm test

MCP_EDGE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)

mcp_edge_node_ok() {
  # True when `node` on PATH is at least 22.12 (wrangler's, vitest's and the project's floor).
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) ? 0 : 1)'
}

mcp_edge_use_node() {
  local version arch integrity dir tgz got
  version=$(tr -d ' \n' <"$MCP_EDGE_ROOT/.node-version")
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) arch=x64 integrity='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==' ;;
    Linux-aarch64) arch=arm64 integrity='sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==' ;;
    *)
      echo "use-node: no pinned Node build for $(uname -s)-$(uname -m); install Node $version (>= 22.12) yourself" >&2
      return 1
      ;;
  esac
  dir="$MCP_EDGE_ROOT/.node/$version-$arch"
  if [ ! -x "$dir/bin/node" ]; then
    echo "use-node: bringing Node $version ($arch) from the npm registry (node-linux-$arch) into .node/" >&2
    mkdir -p "$dir.tmp" || return 1
    tgz=$(cd "$dir.tmp" && npm pack --silent "node-linux-$arch@$version") || {
      rm -rf "$dir.tmp"
      return 1
    }
    got="sha512-$(openssl dgst -sha512 -binary "$dir.tmp/$tgz" | openssl base64 -A)"
    if [ "$got" != "$integrity" ]; then
      echo "use-node: node-linux-$arch@$version does not match its pinned sha512 (got $got); not using it" >&2
      rm -rf "$dir.tmp"
      return 1
    fi
    tar -xzf "$dir.tmp/$tgz" -C "$dir.tmp" package/bin/node package/LICENSE &&
      mkdir -p "$dir/bin" && mv "$dir.tmp/package/bin/node" "$dir/bin/node" && mv "$dir.tmp/package/LICENSE" "$dir/LICENSE"
    rm -rf "$dir.tmp"
    [ -x "$dir/bin/node" ] || return 1
  fi
  export PATH="$dir/bin:$PATH"
}

if ! mcp_edge_node_ok; then
  mcp_edge_use_node || echo "use-node: could not provide Node >= 22.12; wrangler and vitest will refuse to run" >&2
fi
echo "use-node: $(command -v node) $(node --version 2>/dev/null || echo '(none)')" >&2
unset -f mcp_edge_node_ok mcp_edge_use_node
unset MCP_EDGE_ROOT
