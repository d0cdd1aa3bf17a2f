#!/usr/bin/env bash
# browser.sh is the BROWSER program of the conformance auth scenarios:
# mcpwire login runs it as `browser.sh AUTHORIZATION_URL`. Like a person who
# approves at once, it fetches the authorization URL WITHOUT following the
# redirect, takes the Location the authorization server answers with (the
# loopback redirect URI with code and state) and delivers it to mcpwire's
# callback on 127.0.0.1. It prints nothing of the URL (it carries state).
set -euo pipefail
auth_url=${1:?usage: browser.sh AUTHORIZATION_URL}

if command -v curl >/dev/null 2>&1; then
	location=$(curl -sS -o /dev/null -w '%{redirect_url}' --max-time 10 "$auth_url")
	if [[ -z "$location" ]]; then
		echo "browser.sh: the authorization server did not redirect" >&2
		exit 1
	fi
	curl -sS -o /dev/null --max-time 10 "$location"
else
	node -e '
const get = async (u) => fetch(u, { redirect: "manual", signal: AbortSignal.timeout(10000) });
(async () => {
  const r = await get(process.argv[1]);
  const loc = r.headers.get("location");
  if (!loc) { console.error("browser.sh: the authorization server did not redirect"); process.exit(1); }
  await get(new URL(loc, process.argv[1]).toString());
})().catch((e) => { console.error("browser.sh: " + e.message); process.exit(1); });
' "$auth_url"
fi
