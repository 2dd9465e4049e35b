// AutoDL Pro's create (`pro/create`, the API page): the request body from the spec (a spec id
// for the card, the data center, the system disk expanded, the CUDA lower bound it requires),
// no price before a create (the disk's is the catalog's, labelled so), the reply's `data` the new
// instance's id. The connector sets these as its `createHooks`; create.ts runs them.
import { builtinCatalog, findPlatform } from '../../core/catalog';
import { roundFen } from '../../core/money';
import { autodlCudaFrom } from '../../core/platforms/autodl';
import { autodlSpecFor, isRefusal, type CreateRefusal, type CreateSpec } from '../../core/platforms/create';
import { descriptorOf } from '../../core/platforms/descriptors';
import type { AutodlProConnector } from './autodl';
import { instanceIdOf, withBalance, type CreateHooks, type CreateInput, type CreatePreview, type PreviewBase } from './create';

async function preview(c: AutodlProConnector, spec: CreateSpec, _input: CreateInput, base: PreviewBase, signal?: AbortSignal): Promise<CreatePreview | CreateRefusal> {
  const gpuSpec = autodlSpecFor(spec.card);
  if (isRefusal(gpuSpec)) return gpuSpec;
  const cudaFrom = autodlCudaFrom(base.cuda && (base.cuda.from === 'flag' || base.cuda.from === 'torch') ? { cuda: base.cuda.cuda, from: base.cuda.from } : undefined, spec.image);
  // The Pro page's body: data_center_list?, req_gpu_amount, expand_system_disk_by_gb, gpu_spec_uuid, image_uuid, cuda_v_from, instance_name?.
  const request: Record<string, unknown> = {
    ...(spec.region ? { data_center_list: [spec.region] } : {}),
    req_gpu_amount: spec.gpus,
    expand_system_disk_by_gb: spec.diskGb ?? 0,
    gpu_spec_uuid: gpuSpec,
    image_uuid: spec.image,
    // Required by the page, so always sent: the bound asked, else the image's CUDA, else the page's lowest (autodlCudaFrom).
    cuda_v_from: cudaFrom.code,
    instance_name: spec.name,
  };
  // No price query before a create is documented: the snapshot's payg_price shows once it exists. The disk: the catalog's AutoDL figure, labelled so.
  const perGbDay = findPlatform(builtinCatalog(), descriptorOf(c.kind).catalogPlatform)?.dataDisk.fenPerGbDay?.max;
  const storage = spec.diskGb && perGbDay !== undefined ? { storageFenPerDay: roundFen(spec.diskGb * perGbDay), storageSource: 'catalog' as const } : {};
  return withBalance(c, { ...base, cuda: { cuda: cudaFrom.cuda, from: cudaFrom.from }, request, ...storage }, signal);
}


export const AUTODL_PRO_CREATE: CreateHooks<AutodlProConnector> = {
  preview,
  send: (c, p, signal) => c.proCreate(p.request, signal),
  createdRef: instanceIdOf,
};
