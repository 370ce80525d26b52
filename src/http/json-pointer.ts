// A JSON pointer (the validator's instancePath) as the segments of Pydantic's `loc`, and the value
// it points at.
export type Path = (string | number)[];

/** The JSON pointer's segments; a list index is a number, as in Pydantic's `loc`. */
export function pathOf(instancePath: string, root: unknown): Path {
  if (instancePath === '') return [];
  let value = root;
  return instancePath
    .slice(1)
    .split('/')
    .map((raw) => {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      const segment = Array.isArray(value) && /^\d+$/.test(key) ? Number(key) : key;
      value = valueAt(value, [segment]);
      return segment;
    });
}

export function valueAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object'
        ? (value as Record<string | number, unknown>)[key]
        : undefined,
    root,
  );
}
