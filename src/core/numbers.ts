/** How counts are written in every sentence and picture: "12,345", whatever the machine's locale. */

/** `12345` → `"12,345"`; `1234.567` → `"1,234.57"` (at most two decimals). Locale-independent, so stable in tests. */
export const formatCount = (n: number): string => {
  const [int, frac] = String(Math.round(n * 100) / 100).split('.');
  const grouped = (int ?? '0').replace(
    /^(-?)(\d+)/,
    (_, sign: string, digits: string) => sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ','),
  );
  return frac ? `${grouped}.${frac}` : grouped;
};
