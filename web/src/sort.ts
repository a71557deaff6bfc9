// The order of names in tables: natural (example-2 before example-10), case-insensitive.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export const naturalCompare = (a: string, b: string): number => collator.compare(a, b);
