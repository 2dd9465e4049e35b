// Text from a box or a log inside a chat message. 企业微信, 钉钉, 飞书, Server酱 and PushPlus
// render links, mentions and (several of them) Markdown or HTML, so a log line could otherwise
// ping a whole group (@all, <at user_id="all">, @13800138000), carry a link to click or format
// itself into something else. Every character that starts such a thing becomes a look-alike
// that no client gives a meaning to; the words stay readable.

/** The longest box line a message quotes (a cause line is cut around its words before this). */
export const MAX_MESSAGE_LINE = 300;

// Control characters, line/paragraph separators, bidi controls, zero-width characters and the BOM.
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\ufeff]/g;
const LOOK_ALIKE: Record<string, string> = {
  '@': '＠',
  '<': '‹',
  '>': '›',
  '[': '［',
  ']': '］',
  '`': 'ˋ',
  '\\': '＼',
  // The slot brackets (box.ts): only the message's own template may hold them.
  '⟦': '［',
  '⟧': '］',
};
const SIGNIFICANT = /[@<>[\]`\\\u27e6\u27e7]/g;
// "http://", "ftp://", "weixin://": the scheme's separator.
const SCHEME = /:\/\//g;
// A dot between a name and two letters (example.com, www.x.cn, a.b.co): clients autolink bare
// domains. The dot becomes U+2024 ONE DOT LEADER, which looks the same and links nothing.
const DOMAIN_DOT = /(?<=[\p{L}\p{N}-])\.(?=\p{L}{2})/gu;
// An IPv4 address, which some clients also turn into a link.
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;

/**
 * One line of box text made inert for any chat client: control characters become spaces,
 * @ < > [ ] ` \ become full-width or look-alike characters (no mention, tag, link or code span
 * can start), "://" loses its slashes and domain dots their meaning, and the line is cut at
 * `max` characters with "…". Newlines are folded: a quoted line cannot start a block.
 */
export function inertLine(s: string, max = MAX_MESSAGE_LINE): string {
  const raw = typeof s === 'string' ? s : String(s);
  const head = raw.length > max * 2 + 16 ? raw.slice(0, max * 2 + 16) : raw;
  let t = head
    .replace(CONTROLS, ' ')
    .replace(SIGNIFICANT, (c) => LOOK_ALIKE[c] ?? c)
    .replace(SCHEME, ':∕∕')
    .replace(IPV4, (ip) => ip.replace(/\./g, '․'))
    .replace(DOMAIN_DOT, '․')
    .replace(/ {2,}/g, ' ')
    .trim();
  if (t.length > max || head.length < raw.length) {
    const cut = Array.from(t).slice(0, max - 1).join('');
    t = `${cut}…`;
  }
  return t;
}

/**
 * An inert line inside Markdown (Server酱's desp): inertLine first, then every character
 * Markdown gives a meaning to is backslash-escaped (emphasis, headings, lists, tables, code).
 */
export function inertMarkdownLine(s: string, max = MAX_MESSAGE_LINE): string {
  return inertLine(s, max).replace(/[*_{}()#+\-.!|~"'$:&]/g, (c) => `\\${c}`);
}

/** UTF-8 bytes of a string (without TextEncoder: core also runs where it may be missing). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/**
 * `s` in at most `maxBytes` of UTF-8: unchanged when it fits, else its longest prefix of whole
 * characters (never half a character or half a surrogate pair) followed by `marker`.
 */
export function truncateUtf8(s: string, maxBytes: number, marker: string): { text: string; cut: boolean } {
  if (utf8Bytes(s) <= maxBytes) return { text: s, cut: false };
  const room = maxBytes - utf8Bytes(marker);
  let out = '';
  let n = 0;
  for (const ch of s) {
    const b = utf8Bytes(ch);
    if (n + b > room) break;
    out += ch;
    n += b;
  }
  return { text: out + marker, cut: true };
}
