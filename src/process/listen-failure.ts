// A listener that cannot start says which variables chose its address, as a bad configuration
// does: "127.0.0.1:8000 is in use by another process: stop it, or set PORT to a free port".
// Anything but a failure to listen is returned as it is.

/** The variables that chose a listener's port and host. */
export interface ListenerVariables {
  port: string;
  host: string;
}

export function listenFailure(variables: ListenerVariables, error: unknown): unknown {
  const { code, syscall, address, port } = error as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  // Cluster workers bind through the primary: their failure says `bind`.
  if (syscall !== 'listen' && syscall !== 'bind') return error;
  const where = `${address}:${port}`;
  const advice =
    code === 'EADDRINUSE'
      ? `${where} is in use by another process: stop it, or set ${variables.port} to a free port`
      : code === 'EADDRNOTAVAIL'
        ? `${address} is not an address of this machine: set ${variables.host} to one`
        : `cannot listen on ${where}: check ${variables.port} and ${variables.host}`;
  return new Error(advice, { cause: error });
}
