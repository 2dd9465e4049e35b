// VS Code in the browser keeps globalState (and what else the workbench stores) in the
// page's IndexedDB and localStorage, not in files: read all of it, as text, to look for secrets.
import type { Page } from 'playwright-core';

// Plain text, not a function: tsx's transform would add helpers the page does not have.
const DUMP = `(async () => {
  const out = [];
  const dec = new TextDecoder();
  const ser = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Uint8Array) return dec.decode(v);
    if (v instanceof ArrayBuffer) return dec.decode(new Uint8Array(v));
    try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
  };
  const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  for (const info of await indexedDB.databases()) {
    if (!info.name) continue;
    const db = await req(indexedDB.open(info.name));
    for (const storeName of Array.from(db.objectStoreNames)) {
      const st = db.transaction(storeName, 'readonly').objectStore(storeName);
      const [keys, vals] = await Promise.all([req(st.getAllKeys()), req(st.getAll())]);
      keys.forEach((k, i) => out.push('indexedDB ' + info.name + '/' + storeName + '/' + ser(k) + ' = ' + ser(vals[i])));
    }
    db.close();
  }
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k !== null) out.push('localStorage ' + k + ' = ' + (localStorage.getItem(k) ?? ''));
  }
  return out;
})()`;

export async function dumpBrowserStorage(page: Page): Promise<string[]> {
  return (await page.evaluate(DUMP)) as string[];
}
