/** Content-Disposition file names (RFC 6266): a plain, safe ASCII `filename=` always, the exact name beside it when it differs. */
import { describe, expect, it } from 'vitest';
import { dispositionFileName } from '../../src/core/content-disposition.js';

describe('dispositionFileName', () => {
  it('gives an ASCII name as it is, quoted', () => {
    expect(dispositionFileName('northwind-findings 2026.csv')).toBe('filename="northwind-findings 2026.csv"');
  });

  it('gives any other name a safe ASCII fallback and the exact name in filename*', () => {
    expect(dispositionFileName('Résumé "Q4"/../x%.pdf')).toBe(
      `filename="R_sum_ _Q4__.._x_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22Q4%22%2F..%2Fx%25.pdf`,
    );
    expect(dispositionFileName('..hidden')).toBe(`filename="_hidden"; filename*=UTF-8''..hidden`);
    expect(dispositionFileName("it's (1).csv")).toBe(`filename="it's (1).csv"`);
    expect(dispositionFileName('数据.xlsx')).toBe(`filename="__.xlsx"; filename*=UTF-8''%E6%95%B0%E6%8D%AE.xlsx`);
  });
});
