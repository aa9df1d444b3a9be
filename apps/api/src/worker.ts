// `npm run worker`: the same server in the worker role (document jobs and schedulers, /health only).
process.env.APP_ROLE ||= 'worker';
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./main');
