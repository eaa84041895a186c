import { h, show, startView } from './common.js';
startView('graph', { result: (data) => show(h('pre', {}, JSON.stringify(data, null, 2))) });
