// JSON.parse keeps the last of two equal keys of an object and says nothing. In a file a person
// writes, a second "pro" quietly replacing the first is a mistake to point at, so this finds it:
// one pass over text that JSON.parse has accepted, keeping the keys of each open object.

type Frame = { keys: Set<string>; key: string | null; expectsKey: boolean } | { index: number };

/** The end of the string literal starting at `start` (its closing quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}

/** Where the frames are: each object's current key, each array's current index. */
const segments = (frames: Frame[]): string[] =>
  frames.map((frame) => ('index' in frame ? String(frame.index) : (frame.key ?? '')));

/**
 * The path (keys and indices from the top) of the first key given twice in one object of `text`,
 * which must be valid JSON; null when every key is given once.
 */
export function firstDuplicateKey(text: string): string[] | null {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const top = frames.at(-1);
    switch (text[i]) {
      case '{':
        frames.push({ keys: new Set(), key: null, expectsKey: true });
        break;
      case '[':
        frames.push({ index: 0 });
        break;
      case '}':
      case ']':
        frames.pop();
        break;
      case ',':
        if (top === undefined) break;
        if ('index' in top) top.index += 1;
        else top.expectsKey = true;
        break;
      case '"': {
        const end = stringEnd(text, i);
        if (top !== undefined && !('index' in top) && top.expectsKey) {
          const key = JSON.parse(text.slice(i, end + 1)) as string;
          if (top.keys.has(key)) return [...segments(frames.slice(0, -1)), key];
          top.keys.add(key);
          top.key = key;
          top.expectsKey = false;
        }
        i = end;
        break;
      }
    }
  }
  return null;
}
