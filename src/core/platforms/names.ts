// A platform's name where the UI shows it (the tree's platform group, instance pickers, the
// platform picker of Add Instance): in a Chinese UI the name as the platform writes it; in any
// other language the English name with the platform's own beside it, so a renter who knows
// 矩池云 or 秘塔智算 by that name finds it ("Matpool (矩池云)"). Names that are already the
// platform's own in both (AutoDL, 阿里云 ECS) are written once. Pure.
import { inLanguage, type Words } from './descriptors';

export function platformDisplayName(name: Words, language: string): string {
  const shown = inLanguage(name, language);
  if (shown === name.zh || shown.includes(name.zh)) return shown;
  return `${shown} (${name.zh})`;
}
