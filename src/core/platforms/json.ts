// Platform replies as JSON, bounded before JSON.parse sees them: a reply nested deeper than a
// platform's documented shapes (AutoDL, 阿里云 and 腾讯云 nest a few levels) is refused, so
// megabytes of `[[[[…` never become millions of nested objects. One linear scan, no regex.

/** Deeper than any documented reply; 4 MB of nested brackets took 332 MB to parse. */
export const MAX_JSON_DEPTH = 64;

/** True when arrays/objects in `text` nest deeper than `max` (brackets inside strings do not count). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export type BoundedJson = { ok: true; value: unknown } | { ok: false; reason: 'tooDeep' | 'notJson' };

/** JSON.parse after the depth check. */
export function parseBoundedJson(text: string, maxDepth = MAX_JSON_DEPTH): BoundedJson {
  if (jsonTooDeep(text, maxDepth)) return { ok: false, reason: 'tooDeep' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'notJson' };
  }
}
