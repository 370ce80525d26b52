// Reads a small file a setting names, for start-up: a regular file only (a device, a FIFO or a
// directory named by mistake must neither hang nor fill memory), and never more of it than the
// bound and one byte, the byte that says it is over.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Why the file was not read, in words that follow its variable's name. */
export class FileRefused extends Error {}

const cannotRead = (path: string, error: unknown) => {
  const { code, message } = error as NodeJS.ErrnoException;
  return new FileRefused(
    `cannot be read (${code ?? message.replace(/\s+/g, ' ')}): ${JSON.stringify(path)}`,
  );
};

const kindOf = (stats: Stats): string =>
  stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a FIFO'
      : stats.isCharacterDevice()
        ? 'a character device'
        : stats.isBlockDevice()
          ? 'a block device'
          : 'a socket';

/** At most `limit` bytes of the open file. */
function readAtMost(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  let length = 0;
  for (let read = -1; read !== 0 && length < limit; length += read)
    read = readSync(fd, buffer, length, limit - length, null);
  return buffer.subarray(0, length);
}

/** The bytes of the regular file at `path`; refused when it is not one or holds over `maxBytes`. */
export function readBoundedFile(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO does not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw cannotRead(path, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new FileRefused(`is not a regular file (${kindOf(stats)}): ${JSON.stringify(path)}`);
    const bytes = readAtMost(fd, maxBytes + 1);
    if (bytes.length > maxBytes)
      throw new FileRefused(`is over ${maxBytes} bytes: ${JSON.stringify(path)}`);
    return bytes;
  } catch (error) {
    throw error instanceof FileRefused ? error : cannotRead(path, error);
  } finally {
    closeSync(fd);
  }
}
