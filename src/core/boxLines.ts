// Box text is read one line at a time, and no pattern ever sees more than MAX_BOX_LINE characters
// of a line: a hostile box can print a megabyte without a newline, but every parser of its output
// (training logs, nvidia-smi, listings, probes, job states) looks only at the first 16 KiB of each
// line. With the patterns themselves linear (eslint's regexp/no-super-linear-* rules over every
// module that reads box text), a line costs at most O(MAX_BOX_LINE) work.

/**
 * The longest line any parser of box text looks at; the rest of a longer line is ignored. The
 * widest real line seen is a `--query-gpu` CSV header of every field (6.5 KB, driver 590).
 */
export const MAX_BOX_LINE = 16 * 1024;

/** The part of one line a parser may look at. */
export function capLine(line: string): string {
  return line.length > MAX_BOX_LINE ? line.slice(0, MAX_BOX_LINE) : line;
}

/** `text` split at \n (a \r before it dropped), each line capped to MAX_BOX_LINE. */
export function boxLines(text: string): string[] {
  const out = text.split('\n');
  for (let i = 0; i < out.length; i++) {
    let l = out[i]!;
    if (l.endsWith('\r')) l = l.slice(0, -1);
    out[i] = l.length > MAX_BOX_LINE ? l.slice(0, MAX_BOX_LINE) : l;
  }
  return out;
}

/** `text` with every line capped to MAX_BOX_LINE (for parsers that run multi-line patterns over a whole output). */
export function capLines(text: string): string {
  let long = false;
  let start = 0;
  for (let nl = text.indexOf('\n'); ; nl = text.indexOf('\n', start)) {
    const end = nl < 0 ? text.length : nl;
    if (end - start > MAX_BOX_LINE) {
      long = true;
      break;
    }
    if (nl < 0) break;
    start = nl + 1;
  }
  return long ? boxLines(text).join('\n') : text;
}

/** `s` without the characters of `chars` at its end (instead of `/[…]+$/`, which is quadratic on a long run not at the end). */
export function trimEndOf(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return s.slice(0, end);
}

/**
 * `A / B` in whitespace-separated text (nvidia-smi's `64W / 400W`, `1MiB / 81920MiB`), read by
 * tokens: what `/(\S+)\s*\/\s*(\S+)/` matches (with `atEnd`, `…(\S+)\s*$`), without its backtracking.
 */
export function slashPair(s: string, atEnd = false): [string, string] | null {
  const t = s.trim().split(/\s+/).filter(Boolean);
  const n = t.length;
  const ok = (j: number) => !atEnd || j === n - 1;
  for (let i = 0; i < n; i++) {
    const tok = t[i]!;
    const next = t[i + 1];
    // The whole token, then a slash that starts the next one.
    if (next !== undefined && next.startsWith('/')) {
      if (next.length > 1 && ok(i + 1)) return [tok, next.slice(1)];
      if (next === '/' && t[i + 2] !== undefined && ok(i + 2)) return [tok, t[i + 2]!];
    }
    // A slash inside the token, the last one first (the first group is greedy).
    for (let k = tok.length - 1; k >= 1; k--) {
      if (tok[k] !== '/') continue;
      if (k < tok.length - 1) {
        if (ok(i)) return [tok.slice(0, k), tok.slice(k + 1)];
      } else if (next !== undefined && ok(i + 1)) return [tok.slice(0, k), next];
    }
  }
  return null;
}
