import { strict as assert } from 'node:assert';
import { buildCalculatorHtml, contentSecurityPolicy, makeNonce } from '../../src/webview/html';
import { cspContent } from '../support/html-attr';

const base = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/calculator.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/calculator.css',
  lang: 'zh-cn',
  title: 'GPU 费用计算器',
};

function cspOf(html: string): Map<string, string> {
  const c = cspContent(html);
  assert.ok(c, 'CSP meta tag missing');
  assert.doesNotMatch(c.raw, /[<>"']/, 'the attribute holds only escaped markup');
  const out = new Map<string, string>();
  for (const d of c.applied.split(';').map((s) => s.trim()).filter(Boolean)) {
    const [k, ...v] = d.split(/\s+/);
    out.set(k!, v.join(' '));
  }
  return out;
}

describe('calculator HTML and CSP', () => {
  it('a nonce is 128 random bits, fresh every time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const n = makeNonce();
      assert.equal(Buffer.from(n, 'base64').length, 16);
      seen.add(n);
    }
    assert.equal(seen.size, 1000);
  });

  it("default-src 'none', scripts only by nonce, styles and fonts from the webview origin", () => {
    const nonce = makeNonce();
    const html = buildCalculatorHtml({ ...base, nonce });
    const csp = cspOf(html);
    assert.equal(csp.get('default-src'), "'none'");
    assert.equal(csp.get('script-src'), `'nonce-${nonce}'`);
    assert.equal(csp.get('style-src'), base.cspSource);
    assert.equal(csp.get('font-src'), base.cspSource);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|wasm-unsafe/);
  });

  it('every script carries the nonce and loads from a URI; there is no inline script or style', () => {
    const nonce = makeNonce();
    const html = buildCalculatorHtml({ ...base, nonce });
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    for (const s of scripts) {
      assert.match(s[1]!, new RegExp(`nonce="${nonce.replace(/[+/]/g, '\\$&')}"`));
      assert.match(s[1]!, /src="https:/);
      assert.equal(s[2]!.trim(), '');
    }
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i);
  });

  it('two panels get two different nonces', () => {
    const a = buildCalculatorHtml({ ...base, nonce: makeNonce() });
    const b = buildCalculatorHtml({ ...base, nonce: makeNonce() });
    assert.notEqual(cspOf(a).get('script-src'), cspOf(b).get('script-src'));
  });

  it("accepts the source list current VS Code hands over ('self' plus the CDN host)", () => {
    const csp = cspOf(buildCalculatorHtml({ ...base, cspSource: "'self' https://*.vscode-cdn.net", nonce: makeNonce() }));
    assert.equal(csp.get('style-src'), "'self' https://*.vscode-cdn.net");
    assert.equal(csp.get('default-src'), "'none'");
  });

  it('escapes the title and refuses a CSP source or nonce that could add directives', () => {
    const html = buildCalculatorHtml({ ...base, nonce: makeNonce(), title: '</title><script>alert(1)</script>' });
    assert.doesNotMatch(html, /<script>alert/);
    assert.throws(() => contentSecurityPolicy("https://x; script-src 'unsafe-inline'", makeNonce()), /unsafe CSP source/);
    assert.throws(() => contentSecurityPolicy("'self' 'unsafe-inline'", makeNonce()), /unsafe CSP source/);
    assert.throws(() => contentSecurityPolicy("'self' https://x 'unsafe-eval'", makeNonce()), /unsafe CSP source/);
    assert.throws(() => contentSecurityPolicy('', makeNonce()), /unsafe CSP source/);
    assert.throws(() => contentSecurityPolicy(base.cspSource, "abc' 'unsafe-inline"), /nonce/);
    assert.throws(() => contentSecurityPolicy(base.cspSource, ''), /nonce/);
  });
});
