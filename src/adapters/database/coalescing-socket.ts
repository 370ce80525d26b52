// A socket for pg (its public `stream` option) that sends what is written to it in one turn of the
// event loop in one go. pg writes each statement on its own; statements sent without waiting for
// one another (BEGIN with a transaction's first statement, in pipeline mode) would otherwise each
// be a send of their own, and on loopback or a network every send costs a system call and wakes
// the server once more.
import { Socket } from 'node:net';

export function coalescingSocket(): Socket {
  const socket = new Socket();
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  // Installed once connected: connect() puts back the prototype's write.
  socket.once('connect', () => {
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      return write(...args);
    }) as Socket['write'];
  });
  return socket;
}
