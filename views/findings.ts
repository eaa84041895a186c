import { h, show, startView } from './common.js';
startView('findings', { result: (data) => show(h('pre', {}, JSON.stringify(data, null, 2))) });
