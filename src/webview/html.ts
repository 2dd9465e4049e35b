// The calculator panel's HTML, exactly as the webview samples do it: default-src 'none',
// one script by a fresh 128-bit nonce, styles and fonts only from the webview's own origin,
// no inline script or style, no eval.
import { forHtml } from '../core/text';

/** 16 random bytes (128 bits), base64. Uses Web Crypto, present in Node 20 and browsers. */
export function makeNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export interface CalculatorHtmlInput {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  /** `webview.asWebviewUri(...)` of dist/webview/calculator.js and media/calculator.css, as strings. */
  scriptUri: string;
  styleUri: string;
  /** BCP 47 language for the <html lang>. */
  lang: string;
  title: string;
}

const NONCE_RE = /^[A-Za-z0-9+/]{22}==$/;

// Every value goes through core's one HTML escaper (forHtml). In the CSP attribute the single
// quotes of 'none' and 'nonce-…' become &#39;, which the browser reads back as ' before it
// applies the policy.

/** A CSP source must not be able to add directives: no quotes, semicolons, commas or whitespace. */
/**
 * `webview.cspSource` is a source list, e.g. "'self' https://*.vscode-cdn.net" in current
 * VS Code: accept 'self' and host sources token by token, nothing that could end the directive.
 */
function checkSource(s: string): string {
  const tokens = s.trim().split(/\s+/);
  const ok = s.length <= 400 && tokens.length > 0 && tokens.every((t) => t === "'self'" || /^[A-Za-z0-9+.:/*_-]+$/.test(t));
  if (!ok) throw new Error(`unsafe CSP source: ${JSON.stringify(s.slice(0, 80))}`);
  return tokens.join(' ');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  if (!NONCE_RE.test(nonce)) throw new Error('nonce must be 16 random bytes in base64');
  const src = checkSource(cspSource);
  return [`default-src 'none'`, `img-src ${src} data:`, `style-src ${src}`, `font-src ${src}`, `script-src 'nonce-${nonce}'`].join('; ') + ';';
}

export function buildCalculatorHtml(i: CalculatorHtmlInput): string {
  const csp = contentSecurityPolicy(i.cspSource, i.nonce);
  return `<!DOCTYPE html>
<html lang="${forHtml(i.lang)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${forHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${forHtml(i.styleUri)}">
<title>${forHtml(i.title)}</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${i.nonce}" src="${forHtml(i.scriptUri)}"></script>
</body>
</html>
`;
}
