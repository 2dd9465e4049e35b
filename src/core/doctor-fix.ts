// The doctor's fix as a script to run on the box: a fresh env first where the report advises
// one (an image's polluted base is how torch gets uninstalled by a dependency), then the pip
// line. The env is conda's only where the probe found conda; elsewhere a venv of the box's own
// Python (`python3 -m venv`), so the fix never types a command the box does not have. The
// doctor's text shows the same commands. Every value from the box is checked before it is written.
import type { Diagnosis } from './doctor';

export const FIX_ENV_NAME = 'work';
/** Where the venv fix puts its env (the home folder: it survives a restart on every platform). */
export const FIX_VENV_DIR = `~/venvs/${FIX_ENV_NAME}`;
/** The Python a fresh env gets when the box's own cannot be read. */
const DEFAULT_PYTHON = '3.10';

/** "3.10.12" → "3.10"; anything that is not a plain version gives null (never pasted into a shell). */
export function pythonMinor(version: string | null | undefined): string | null {
  const m = /^(\d{1,2})\.(\d{1,3})(?:\.\d{1,4})?$/.exec(version ?? '');
  return m ? `${m[1]}.${m[2]}` : null;
}

/** The fresh conda env's two commands, with the box's Python (same major.minor) when it is known. */
export function freshEnvCommands(pythonVersion: string | null): [string, string] {
  return [`conda create -n ${FIX_ENV_NAME} python=${pythonMinor(pythonVersion) ?? DEFAULT_PYTHON} -y`, `conda activate ${FIX_ENV_NAME}`];
}

/** The fresh venv's two commands: the box's python3 (the probe ran it), no conda needed. */
export function freshVenvCommands(): [string, string] {
  return [`python3 -m venv ${FIX_VENV_DIR}`, `. ${FIX_VENV_DIR}/bin/activate`];
}

/** Which fresh env the fix makes: conda where the probe found it, a venv otherwise, none when not advised. */
export function fixEnvKind(d: Pick<Diagnosis, 'fix'>): 'conda' | 'venv' | null {
  if (d.fix.env?.includes('fresh-conda-env')) return 'conda';
  if (d.fix.env?.includes('fresh-venv')) return 'venv';
  return null;
}

/** Lines of shell, or null when the diagnosis has no pip fix. */
export function fixScript(d: Pick<Diagnosis, 'fix' | 'pythonVersion'>): string[] | null {
  const pip = d.fix.pip;
  if (!pip) return null;
  const kind = fixEnvKind(d);
  if (kind === 'conda') return [...freshEnvCommands(d.pythonVersion), pip];
  if (kind === 'venv') return [...freshVenvCommands(), pip];
  return [pip];
}
