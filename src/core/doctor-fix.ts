// The doctor's fix as a script to run on the box: a fresh conda env first where the report
// advises one (an image's polluted base is how torch gets uninstalled by a dependency), then
// the pip line. The doctor's text shows the same commands. Every value from the box is
// checked before it is written.
import type { Diagnosis } from './doctor';

export const FIX_ENV_NAME = 'work';
/** The Python a fresh env gets when the box's own cannot be read. */
const DEFAULT_PYTHON = '3.10';

/** "3.10.12" → "3.10"; anything that is not a plain version gives null (never pasted into a shell). */
export function pythonMinor(version: string | null | undefined): string | null {
  const m = /^(\d{1,2})\.(\d{1,3})(?:\.\d{1,4})?$/.exec(version ?? '');
  return m ? `${m[1]}.${m[2]}` : null;
}

/** The fresh env's two commands, with the box's Python (same major.minor) when it is known. */
export function freshEnvCommands(pythonVersion: string | null): [string, string] {
  return [`conda create -n ${FIX_ENV_NAME} python=${pythonMinor(pythonVersion) ?? DEFAULT_PYTHON} -y`, `conda activate ${FIX_ENV_NAME}`];
}

/** Lines of shell, or null when the diagnosis has no pip fix. */
export function fixScript(d: Pick<Diagnosis, 'fix' | 'pythonVersion'>): string[] | null {
  const pip = d.fix.pip;
  if (!pip) return null;
  if (!d.fix.env?.includes('fresh-conda-env')) return [pip];
  return [...freshEnvCommands(d.pythonVersion), pip];
}
