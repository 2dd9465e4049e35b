// The platforms' official SDKs, in one module that is loaded only when a platform account is
// used. The CLI's build keeps it in a bundle of its own (dist/platform-sdks.js, ~4.5 MB of the
// CLI's 6.7 MB) so that every other command starts without reading it; see esbuild.mjs.
export * as ecs from '@alicloud/ecs20140526';
export * as bss from '@alicloud/bssopenapi20171214';
export { Config } from '@alicloud/openapi-client';
export { cvm } from 'tencentcloud-sdk-nodejs-cvm';
export { CommonClient } from 'tencentcloud-sdk-nodejs-common';
