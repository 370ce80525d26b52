// The origin a client on this machine uses to reach a server listening on host:port: a wildcard
// address (0.0.0.0, ::) is reached on loopback. The simulator tells its clients this origin (the
// checkout and portal `url`s, the dashboard's links).
export function localOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
