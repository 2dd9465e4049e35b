// `gpu-rent probe TARGET --workspace`: the workspace findings in words (glibc for Remote-SSH,
// conda without a login shell, which download endpoints answer from the box and what to use).
import { REMOTE_SSH_MIN_GLIBC } from '../../core/workspace';
import { forTerminal } from '../../core/text';
import type { WorkspaceProbe } from '../../remote/workspaceProbe';
import type { CliLang } from '../lang';
import { t } from '../words';

export function workspaceText(w: WorkspaceProbe, lang: CliLang): string {
  const lines = ['', t(lang, 'Workspace:', '工作区：')];
  const v = w.glibcVerdict;
  if (v.code === 'ok') lines.push(t(lang, "  glibc {0}: VS Code's Remote-SSH server runs here", '  glibc {0}：VS Code 的 Remote-SSH 服务端可以在这里运行', v.version));
  else if (v.code === 'too-old')
    lines.push(t(lang, "  glibc {0} is older than {1}: VS Code 1.99 and later cannot open this box with Remote-SSH. Use an image with a newer system (Ubuntu 20.04 or later), or VS Code 1.98, or gpu-rent's terminal and sync instead", '  glibc {0} 低于 {1}：VS Code 1.99 及以后的版本无法用 Remote-SSH 打开这台机器。请换用系统更新的镜像（Ubuntu 20.04 及以后），或用 VS Code 1.98，或改用 gpu-rent 的终端和同步', v.version, v.min));
  else lines.push(t(lang, '  glibc: unknown (neither getconf nor ldd named it); Remote-SSH needs glibc {0} or newer', '  glibc：未知（getconf 和 ldd 都没有给出）；Remote-SSH 需要 glibc {0} 或更新', REMOTE_SSH_MIN_GLIBC));
  if (w.condaNonLogin) lines.push(t(lang, '  conda on PATH without a login shell: {0}', '  非登录 shell 的 PATH 上有 conda：{0}', forTerminal(w.condaNonLogin)));
  else if (w.condaLogin)
    lines.push(t(lang, "  conda only in a login shell ({0}): Remote-SSH's terminals and `ssh host cmd` will not find it. Run `conda init bash` on the box, or use `bash -lc`", '  conda 只在登录 shell 中（{0}）：Remote-SSH 的终端和 `ssh host cmd` 找不到它。请在机器上运行 `conda init bash`，或用 `bash -lc`', forTerminal(w.condaLogin)));
  else lines.push(t(lang, '  conda: not found', '  conda：没有找到'));
  if (w.reach && w.advice) {
    const name: Record<string, string> = { hf: 'Hugging Face', hfMirror: 'hf-mirror', modelscope: 'ModelScope', pip: t(lang, 'pip index', 'pip 官方源'), pipMirror: t(lang, 'pip mirror (China)', 'pip 国内镜像') };
    lines.push(
      '  ' +
        t(lang, 'Reaches: ', '可访问：') +
        w.reach.map((r) => `${name[r.id] ?? r.id} ${r.status !== null && r.status < 500 ? (r.seconds !== null ? `${r.seconds.toFixed(1)} s` : 'ok') : r.status !== null ? `HTTP ${r.status}` : t(lang, 'no answer', '无应答')}`).join(' · '),
    );
    const a = w.advice;
    lines.push(
      a.models === 'hf'
        ? t(lang, '  Models: Hugging Face directly', '  模型：直接用 Hugging Face')
        : a.models === 'hf-mirror'
          ? t(lang, '  Models: set HF_ENDPOINT={0} for downloads', '  模型：下载时设置 HF_ENDPOINT={0}', a.hfEndpoint ?? '')
          : a.models === 'modelscope'
            ? t(lang, '  Models: Hugging Face and hf-mirror do not answer; ModelScope does (modelscope download)', '  模型：Hugging Face 和 hf-mirror 都无应答；ModelScope 可用（modelscope download）')
            : t(lang, '  Models: no model host answered from the box', '  模型：机器上访问不到任何模型站点'),
    );
    lines.push(
      a.pipIndex
        ? t(lang, '  pip: use the mirror (pip install -i {0} …, or PIP_INDEX_URL)', '  pip：用镜像（pip install -i {0} …，或设置 PIP_INDEX_URL）', a.pipIndex)
        : a.pipReachable
          ? t(lang, '  pip: the default index answers', '  pip：官方源可用')
          : t(lang, '  pip: no index answered from the box', '  pip：机器上访问不到任何 pip 源'),
    );
  }
  if (w.turbo) lines.push(t(lang, "  AutoDL's academic acceleration is here: `source /etc/network_turbo` for a download, `unset http_proxy https_proxy` after it", '  这里有 AutoDL 的学术资源加速：下载前 `source /etc/network_turbo`，下载后 `unset http_proxy https_proxy`'));
  return lines.join('\n') + '\n';
}
