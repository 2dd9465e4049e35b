// Upload Folder to Instance's dialogs (src/extension/words/uploadText.ts): the secret-scan modal names
// each finding by file and kind, offers Upload Without These Files first (the button VS Code's
// dialog focuses) with Cancel as the close affordance, and a scan cut off at its cap offers
// Scan Everything first. A plain formatter stands in for vscode.l10n.
import { strict as assert } from 'node:assert';
import type { SecretKind } from '../../src/core/guards/secrets';
import type { L10n } from '../../src/extension/view/present';
import { DIALOG_FINDINGS, secretKindLabel, secretsDialog, unscannedDialog } from '../../src/extension/words/uploadText';

const l10n: L10n = { t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

describe('extension/uploadText', () => {
  it('names each finding with its file, line and kind; the flagged files once each', () => {
    const d = secretsDialog(
      [
        { path: '.env', kind: 'dotenv' },
        { path: 'src/conf.py', kind: 'huggingFaceToken', line: 3 },
        { path: 'src/conf.py', kind: 'awsAccessKeyId', line: 9 },
      ],
      'project',
      l10n,
    );
    assert.equal(d.message, '3 likely secrets in 2 files of project. The box’s data disk is not encrypted. Nothing was sent.');
    assert.equal(d.detail, ['.env — .env file', 'src/conf.py:3 — Hugging Face token', 'src/conf.py:9 — AWS access key id'].join('\n'));
    assert.deepEqual(d.files, ['.env', 'src/conf.py']);
    assert.deepEqual(d.buttons, { without: 'Upload Without These Files', anyway: 'Upload Anyway', cancel: 'Cancel' });
  });

  it('many findings: the first ones named, the rest counted', () => {
    const many = Array.from({ length: DIALOG_FINDINGS + 7 }, (_, i) => ({ path: `k/${i}.pem`, kind: 'keyFile' as const }));
    const d = secretsDialog(many, 'p', l10n);
    const lines = d.detail.split('\n');
    assert.equal(lines.length, DIALOG_FINDINGS + 1);
    assert.equal(lines[0], 'k/0.pem — key or certificate file');
    assert.equal(lines[DIALOG_FINDINGS], '… and 7 more (all are in the GPU Rent output).');
    assert.equal(d.files.length, DIALOG_FINDINGS + 7, 'Upload Without These Files leaves out every flagged file, shown or not');
  });

  it('every kind has its own words', () => {
    const kinds: SecretKind[] = ['privateKey', 'sshKeyFile', 'keyFile', 'dotenv', 'credentialsFile', 'awsAccessKeyId', 'awsSecretAccessKey', 'huggingFaceToken', 'openAiKey', 'anthropicKey', 'githubToken', 'gitlabToken', 'slackToken', 'googleApiKey', 'stripeKey', 'aliyunAccessKeyId', 'wandbKey', 'genericSecretAssignment'];
    const labels = kinds.map((k) => secretKindLabel(k, l10n));
    assert.equal(new Set(labels).size, kinds.length);
    assert.ok(labels.every((l) => l && !kinds.includes(l as SecretKind)));
  });

  it('a cut-off scan says where it stopped and how many files were not read', () => {
    const d = unscannedDialog({ truncated: { reason: 'maxBytes', filesSeen: 1200, limit: 512 * 1024 * 1024 }, unscanned: 30 }, 'data', l10n);
    assert.equal(d.message, 'The secret scan of data stopped at its limit (512 MiB of file content): 30 files were not checked. Nothing was sent.');
    assert.match(d.detail, /after the first 1200/);
    assert.deepEqual(d.buttons, { scanAll: 'Scan Everything', anyway: 'Upload Unchecked Files', cancel: 'Cancel' });
    assert.match(unscannedDialog({ truncated: { reason: 'maxFiles', filesSeen: 200000, limit: 200000 }, unscanned: 5 }, 'data', l10n).message, /\(200000 files\)/);
  });
});
