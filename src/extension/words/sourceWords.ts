// A catalog price's source in the UI's language (issue 41 bug 10: the add-price step showed
// "field report §1 price table (3090 per hour)" inside the Chinese UI). Each source the built-in
// catalog names has its words here; a source from a user's own catalog file is shown as written.
import type { L10n } from '../../core/l10n';

export function catalogSourceText(source: string, l10n: L10n): string {
  switch (source) {
    case 'field report §1 price table (3090 per hour)':
      return l10n.t('field report §1 price table (3090 per hour)');
    case 'field report §5 (3090 weekly)':
      return l10n.t('field report §5 (3090 weekly)');
    case 'field report §1 text and §5 (3090 monthly)':
      return l10n.t('field report §1 text and §5 (3090 monthly)');
    case 'field report §3 (AutoDL 4090)':
      return l10n.t('field report §3 (AutoDL 4090)');
    case 'field report §5 (4090 monthly)':
      return l10n.t('field report §5 (4090 monthly)');
    case 'field report §1 text':
      return l10n.t('field report §1 text');
    case 'field report §3 (A100-80G about ¥11/h)':
      return l10n.t('field report §3 (A100-80G about ¥11/h)');
    case 'field report §5 (big-cloud A100-80G figure, not specific to one cloud)':
      return l10n.t('field report §5 (big-cloud A100-80G figure, not specific to one cloud)');
    case 'field report §1 text (free V100 16GB quota)':
      return l10n.t('field report §1 text (free V100 16GB quota)');
    case 'field report §5 (free T4)':
      return l10n.t('field report §5 (free T4)');
    default:
      return source;
  }
}
