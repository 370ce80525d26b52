// Stripe's form encoding: `application/x-www-form-urlencoded` pairs whose keys use bracket
// notation for nesting, `line_items[0][price]=...`, `metadata[user_id]=...`, `expand[]=...`.
// The same decoder reads POST bodies and GET query strings.
import { invalidParam } from './errors.ts';

export type FormValue = string | FormObject | FormValue[];
export interface FormObject {
  [key: string]: FormValue;
}

// While decoding, every container is a null-prototype object (so `__proto__` is just a key);
// containers whose keys are all indices become arrays at the end.
type Node = { [key: string]: Node | string };

function segmentsOf(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) throw invalidParam(`Invalid parameter name: ${key}`);
  return [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw invalidParam('Invalid request: the body or query string is not valid URL encoding.');
  }
}

function place(root: Node, segments: string[], value: string, key: string): void {
  let node = root;
  segments.forEach((raw, index) => {
    const last = index === segments.length - 1;
    const name = raw === '' ? String(Object.keys(node).length) : raw;
    if (last) {
      if (typeof node[name] === 'object')
        throw invalidParam(`Invalid hash: ${key} is given both as a value and as a hash.`, key);
      node[name] = value;
      return;
    }
    const next = node[name];
    if (typeof next === 'string')
      throw invalidParam(`Invalid hash: ${key} is given both as a value and as a hash.`, key);
    node = next ?? (node[name] = Object.create(null) as Node);
  });
}

function finish(node: Node): FormObject | FormValue[] {
  const keys = Object.keys(node);
  const finished = (key: string): FormValue => {
    const value = node[key]!;
    return typeof value === 'string' ? value : finish(value);
  };
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map(finished);
  }
  const out = Object.create(null) as FormObject;
  for (const key of keys) out[key] = finished(key);
  return out;
}

export function decodeForm(text: string): FormObject {
  const root = Object.create(null) as Node;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = decodeComponent(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decodeComponent(pair.slice(at + 1));
    place(root, segmentsOf(key), value, key);
  }
  const decoded = finish(root);
  return Array.isArray(decoded)
    ? Object.assign(Object.create(null) as FormObject, decoded)
    : decoded;
}
