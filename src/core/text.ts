// Text that came from a rented box (GPU names, conda env names, stderr, job names, file names,
// log lines) is data, never markup or terminal control. These are the one set of functions
// every front end renders it through: for a terminal every control character is shown as an
// escape (so ESC [ 2 J, OSC 52 clipboard writes and the one-byte CSI U+009B stay inert text),
// for Markdown and HTML the markup characters are escaped.

const HEX = (n: number, w: number) => n.toString(16).padStart(w, '0');

// C0 (but the ones `keep` allows), DEL, C1, the line/paragraph separators, the bidi embeddings,
// overrides and isolates (they reorder what is shown), the BOM / zero-width no-break space, and
// the characters that draw nothing, so that a name holding one looks like another name: the soft
// hyphen, the combining grapheme joiner U+034F, the Hangul fillers U+115F U+1160 U+3164 U+FFA0,
// the Khmer inherent vowels U+17B4 U+17B5, the Mongolian vowel separator U+180E, the zero-width
// space and (non-)joiners U+200B-U+200D, the word joiner and invisible operators U+2060-U+2064,
// the deprecated format characters U+206A-U+206F, the braille blank U+2800 and the interlinear
// annotation marks U+FFF9-U+FFFB.
const INVISIBLE = '\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u200b-\\u200d\\u2060-\\u2064\\u206a-\\u206f\\u2800\\u3164\\uffa0\\ufff9-\\ufffb';
const CONTROL = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c\\ufeff${INVISIBLE}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x1b': '\\x1b' };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const c = ch.charCodeAt(0);
  return c <= 0xff ? `\\x${HEX(c, 2)}` : `\\u${HEX(c, 4)}`;
}

export interface TerminalTextOptions {
  /** Control characters to pass through unchanged, e.g. '\n' for multi-line text, '\n\t\r' for a program's log. */
  keep?: string;
}

/**
 * Box text for a terminal: every control character (C0, DEL, C1, bidi controls; newline and
 * tab too unless kept) written as a visible escape (`\x1b`, `\x9b`, `\n`, `\u202e`). Nothing the
 * terminal would act on survives; the printable text is unchanged. Works chunk by chunk.
 */
export function forTerminal(s: string, opts: TerminalTextOptions = {}): string {
  const text = typeof s === 'string' ? s : String(s);
  const keep = opts.keep ?? '';
  return text.replace(CONTROL, (ch) => (keep.includes(ch) ? ch : visible(ch)));
}

/** forTerminal for text that may span lines (stderr excerpts, doctor text): newlines and tabs kept. */
export function forTerminalLines(s: string): string {
  return forTerminal(s, { keep: '\n\t' });
}

/** True when `s` holds a character forTerminal would rewrite. */
export function hasControl(s: string, keep = ''): boolean {
  CONTROL.lastIndex = 0;
  for (const m of s.matchAll(CONTROL)) if (!keep.includes(m[0])) return true;
  return false;
}

/**
 * Box text inside Markdown (VS Code tooltips, the doctor report document): every character
 * Markdown gives a meaning to is backslash-escaped, `<`/`>`/`&` become entities (so no HTML
 * and no autolinks), and control characters are shown as in forTerminal. Newlines are kept as
 * spaces so a value cannot start a new block (a heading, a list, a fenced code block).
 */
export function forMarkdown(s: string): string {
  const text = forTerminal(typeof s === 'string' ? s : String(s), { keep: '\n\t' }).replace(/[\r\n\t]+/g, ' ');
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~"'$:]/g, (c) => `\\${c}`);
}

/** Box text inside a Markdown code span or fenced block: only the fence can be escaped, so backticks are replaced. */
export function forMarkdownCode(s: string): string {
  return forTerminal(typeof s === 'string' ? s : String(s), { keep: '\n\t' }).replace(/`/g, 'ˋ');
}

/** Box text inside HTML (text or a quoted attribute value). */
export function forHtml(s: string): string {
  return forTerminal(typeof s === 'string' ? s : String(s), { keep: '\n\t' })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

// What JSON.stringify leaves raw but a terminal acts on, reorders or draws as nothing: DEL, C1
// (U+009B is CSI), the line separators, the bidi controls and the invisible characters above.
const JSON_RAW = new RegExp(`[\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c\\ufeff${INVISIBLE}]`, 'g');

/** JSON.stringify whose text is safe on a terminal: the same JSON value, every such character written as \uXXXX. */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(JSON_RAW, (c) => `\\u${HEX(c.charCodeAt(0), 4)}`);
}

/** The longest box-bearing message a toast shows; the rest goes to the output channel. */
export const NOTIFICATION_MAX_CHARS = 500;
/** The longest text a modal dialog's detail shows. */
export const NOTIFICATION_DETAIL_MAX_CHARS = 8000;

export interface NotificationText {
  text: string;
  /** True when the text was cut to fit: the caller keeps the whole text elsewhere (the output channel). */
  cut: boolean;
}

/**
 * Text for a VS Code notification or dialog (showErrorMessage and its kin). A notification's
 * message turns `[label](https://…)`, `[label](command:…)` and `[label](file:…)` into links,
 * and a click on a `command:` link runs that command — so box or platform text must never keep
 * that shape. Every `](` is written `] (` (the link syntax needs the two characters side by
 * side), `<` and `>` become ‹ › (no autolink or HTML), control characters show as escapes
 * (as forTerminal), whitespace runs fold to one space (a toast has no lines; `keepNewlines` for
 * a modal's detail keeps them), and the text is cut to `max` characters with an ellipsis.
 * Applied to the whole message, so a link cannot be assembled from a template and a value.
 */
export function forNotification(s: string, opts: { keepNewlines?: boolean; max?: number } = {}): NotificationText {
  const raw = typeof s === 'string' ? s : String(s);
  const max = opts.max ?? (opts.keepNewlines ? NOTIFICATION_DETAIL_MAX_CHARS : NOTIFICATION_MAX_CHARS);
  // Bound the work before any pass: a 100 MB stderr is cut first, not escaped whole.
  const head = raw.length > max * 2 + 16 ? raw.slice(0, max * 2 + 16) : raw;
  let text = forTerminal(head, { keep: opts.keepNewlines ? '\n\t' : '\n\t\r' });
  text = opts.keepNewlines ? text.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n') : text.replace(/\s+/g, ' ');
  text = text.replace(/\]\s*\(/g, '] (').replace(/</g, '‹').replace(/>/g, '›');
  let cut = head.length < raw.length;
  if (text.length > max) {
    // Never split a surrogate pair or an escape like \x1b.
    let end = max - 1;
    if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end--;
    const esc = text.lastIndexOf('\\', end);
    if (esc >= 0 && end - esc < 6) end = esc;
    text = text.slice(0, end) + '…';
    cut = true;
  } else if (cut) text += '…';
  return { text: opts.keepNewlines ? text : text.trim(), cut };
}

/**
 * Box or platform text in a one-line plain label: a tree item's label or description, a quick
 * pick item, the status bar. None of these render links, but quick picks and the status bar
 * draw `$(name)` as an icon, and a newline or a bidi override would break or reorder the line:
 * control characters show as escapes, `$(` keeps its characters but not its meaning (a zero-width
 * space between them), and the text is cut to `max` characters.
 */
export function forLabel(s: string, max = 200): string {
  const raw = typeof s === 'string' ? s : String(s);
  const t = forTerminal(raw.length > max * 2 ? raw.slice(0, max * 2) : raw).replace(/\$\(/g, '$\u200b(');
  return t.length > max || raw.length > max * 2 ? t.slice(0, max - 1) + '…' : t;
}

/** The most matches an error names before "and N more" (an ambiguous name can match thousands). */
export const LIST_MAX_SHOWN = 10;

/**
 * `items` joined with ', ', at most `max` of them, then `more(n)` for the rest ("and 1490 more"):
 * a message that names matches stays one readable line however many there are.
 */
export function listSome(items: readonly string[], more: (n: number) => string = (n) => `and ${n} more`, max = LIST_MAX_SHOWN): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown}, ${more(items.length - max)}` : shown;
}
