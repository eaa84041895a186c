import { embeddingThroughput } from './live.js';
const rows = await embeddingThroughput({ small: process.argv.includes('--small'), log: () => {} } as any);
console.log(JSON.stringify(rows.map((r: any) => ({ v: r.value, size: r.size, note: r.note }))));
