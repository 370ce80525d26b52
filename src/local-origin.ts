// The origin a local process uses to reach a server listening on host:port: a wildcard address
// (0.0.0.0, ::) is reached on loopback. Shared by the payment simulator (the origin it tells its
// clients) and the operator CLI (which reaches the simulator inside the running service).
export function localOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
