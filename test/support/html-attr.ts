// An HTML attribute value as the browser's parser hands it on: the character references that
// core/text.ts forHtml writes, read back. Tests read the CSP through it, as the webview does.
export function attributeValue(raw: string): string {
  return raw.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

/** The Content-Security-Policy meta tag's content, raw (as written) and as applied. */
export function cspContent(html: string): { raw: string; applied: string } | undefined {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  return m ? { raw: m[1]!, applied: attributeValue(m[1]!) } : undefined;
}
