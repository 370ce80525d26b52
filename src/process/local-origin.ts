// The origin a local process uses to reach a server listening on host:port: a wildcard address
// (0.0.0.0, ::) is reached on loopback. The operator CLI reaches the simulator inside the running
// service this way.
export function localOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
