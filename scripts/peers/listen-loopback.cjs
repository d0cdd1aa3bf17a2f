// listen-loopback.cjs is preloaded (node --require) by internal/peers into
// the reference servers the Go tests start over HTTP. It makes every server
// socket the peer opens on a bare port listen on 127.0.0.1 only, and prints
// the address it got to stderr as
//
//   mcpwire-peer: listening on 127.0.0.1:<port>
//
// so a test can start the peer with PORT=0 (no port race) and wait for that
// line instead of polling.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const bare = typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]));
  if (bare && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") {
      process.stderr.write(`mcpwire-peer: listening on ${a.address}:${a.port}\n`);
    }
  });
  return listen.apply(this, args);
};
