/*
 * tigris-posix: load a .tgrs plan from a file and run it once on the reference kernels.
 *
 *   tigris-posix PLAN.tgrs OUTPUT.bin [INPUT.bin ...]
 *
 * One INPUT.bin per model input, in the plan's order, each holding the array the model
 * declares: its dtype, its shape and its axis order (NCHW for an ONNX image, NHWC for a
 * TFLite one), row-major, as `tigris run` reads a .bin file. The plan stores images
 * channels-last, so this program moves the channel axis where the plan says it must.
 * OUTPUT.bin receives every model output in turn, in the model's order too.
 * Exit status: 0 done, 1 failed, 2 usage error.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"
#include "tigris_mem.h"

/* Covers every tensor alignment (plans assume at most 32) and the 16 bytes XIP weights need. */
#define BUFFER_ALIGN 64

/* A zeroed block of `size` bytes (at least one) starting on a BUFFER_ALIGN boundary. */
static void *zeroed_block(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, BUFFER_ALIGN, size ? size : 1) != 0) return NULL;
    memset(p, 0, size ? size : 1);
    return p;
}

/* The whole file in an aligned block, or NULL with a message on stderr. */
static uint8_t *read_file(const char *path, uint32_t *len)
{
    FILE *f = fopen(path, "rb");
    long size;
    uint8_t *data = NULL;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "Error: %s: cannot read the file\n", path);
        if (f != NULL) fclose(f);
        return NULL;
    }
    data = (uint8_t *)zeroed_block((size_t)size);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "Error: %s: cannot read the file\n", path);
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = (uint32_t)size;
    return data;
}

/* A slow buffer that holds every activation of the plan twice over, as `tigris run` gives. */
static uint32_t slow_bytes_for(const tigris_plan_t *plan)
{
    uint32_t total = 64u * 1024u;
    uint16_t i;
    for (i = 0; i < plan->header->num_tensors; ++i) {
        const tigris_tensor_t *t = &plan->tensors[i];
        if ((t->flags & TIGRIS_TENSOR_CONSTANT) == 0) {
            total +=
                2u * ((t->size_bytes + TIGRIS_PLAN_MAX_ALIGN - 1u) / TIGRIS_PLAN_MAX_ALIGN * TIGRIS_PLAN_MAX_ALIGN);
        }
    }
    return total;
}

/* Plans store rank-4 and rank-3 activations channels-last (NHWC, NLC) unless the tensor is
 * LINEAR (kept in the model's order) or CALLER_ORDER (the model declares that order itself). */
static int stored_channels_last(const tigris_tensor_t *t)
{
    return (t->flags & (TIGRIS_TENSOR_LINEAR | TIGRIS_TENSOR_CALLER_ORDER)) == 0 && (t->ndim == 4 || t->ndim == 3);
}

/* Copies a boundary tensor between the model's order (N, C, spatial...) and the plan's
 * (N, spatial..., C): to_stored 1 reads `src` in the model's order, 0 writes `dst` in it. */
static void move_channels(const tigris_plan_t *plan, const tigris_tensor_t *t, const uint8_t *src, uint8_t *dst,
                          int to_stored)
{
    const int32_t *stored = tigris_tensor_shape(plan, t); /* N, H, W, C or N, L, C */
    const size_t elem = tigris_dtype_size(tigris_tensor_declared_dtype(t));
    const size_t batch = (size_t)stored[0], channels = (size_t)stored[t->ndim - 1];
    size_t spatial = 1, b, s, c;
    int axis;
    for (axis = 1; axis < t->ndim - 1; ++axis) spatial *= (size_t)stored[axis];
    for (b = 0; b < batch; ++b) {
        for (s = 0; s < spatial; ++s) {
            for (c = 0; c < channels; ++c) {
                const size_t at_stored = ((b * spatial + s) * channels + c) * elem;
                const size_t at_model = ((b * channels + c) * spatial + s) * elem;
                if (to_stored) {
                    memcpy(dst + at_stored, src + at_model, elem);
                } else {
                    memcpy(dst + at_model, src + at_stored, elem);
                }
            }
        }
    }
}

/* Writes every model input from its file, one file per input in plan order. */
static int write_inputs(const tigris_plan_t *plan, tigris_mem_t *mem, char **paths)
{
    uint8_t i;
    for (i = 0; i < plan->header->num_model_inputs; ++i) {
        const uint16_t idx = plan->model_inputs[i];
        const tigris_tensor_t *t = &plan->tensors[idx];
        uint32_t len = 0;
        uint8_t *data = read_file(paths[i], &len);
        uint8_t *stored;
        tigris_error_t err;
        if (data == NULL) return 1;
        if (len != tigris_iface_bytes(plan, idx)) {
            fprintf(stderr, "Error: %s: %u bytes, input '%s' takes %u\n", paths[i], (unsigned)len,
                    tigris_tensor_name(plan, t), (unsigned)tigris_iface_bytes(plan, idx));
            free(data);
            return 1;
        }
        stored = data;
        if (stored_channels_last(t)) {
            stored = (uint8_t *)zeroed_block(len);
            if (stored != NULL) move_channels(plan, t, data, stored, 1);
        }
        err = stored ? tigris_input_write(plan, mem, idx, stored, len) : TIGRIS_ERR_NULL;
        if (stored != data) free(stored);
        free(data);
        if (err != TIGRIS_OK) {
            fprintf(stderr, "Error: input '%s': %s\n", tigris_tensor_name(plan, &plan->tensors[idx]),
                    tigris_error_str(err));
            return 1;
        }
    }
    return 0;
}

/* Appends every model output to `out`, in plan order. */
static int write_outputs(const tigris_plan_t *plan, const tigris_mem_t *mem, FILE *out)
{
    uint8_t i;
    for (i = 0; i < plan->header->num_model_outputs; ++i) {
        const uint16_t idx = plan->model_outputs[i];
        const tigris_tensor_t *t = &plan->tensors[idx];
        const uint32_t bytes = tigris_iface_bytes(plan, idx);
        uint8_t *data = (uint8_t *)zeroed_block(bytes);
        uint8_t *model = stored_channels_last(t) ? (uint8_t *)zeroed_block(bytes) : data;
        tigris_error_t err = data && model ? tigris_output_read(plan, mem, idx, data, bytes) : TIGRIS_ERR_NULL;
        if (err == TIGRIS_OK && model != data) move_channels(plan, t, data, model, 0);
        if (err != TIGRIS_OK || fwrite(model, 1, bytes, out) != bytes) {
            fprintf(stderr, "Error: output '%s': %s\n", tigris_tensor_name(plan, t),
                    err != TIGRIS_OK ? tigris_error_str(err) : "cannot write");
            if (model != data) free(model);
            free(data);
            return 1;
        }
        if (model != data) free(model);
        free(data);
    }
    return 0;
}

/* Loads the plan, gives it caller-owned memory, runs it once and writes its outputs. */
static int run_plan(const uint8_t *plan_data, uint32_t plan_len, char **inputs, int num_inputs, FILE *out)
{
    tigris_plan_t plan;
    tigris_mem_t mem;
    tigris_exec_stats_t stats;
    tigris_exec_error_t exec;
    void **tensor_ptrs, *fast, *slow, *workspace, *state;
    uint32_t fast_size, slow_size;
    size_t workspace_size, state_size;
    int rc = 1;
    tigris_error_t err = tigris_plan_load(plan_data, plan_len, &plan);
    if (err != TIGRIS_OK) {
        fprintf(stderr, "Error: the plan: %s\n", tigris_error_str(err));
        return 1;
    }
    if (num_inputs != plan.header->num_model_inputs) {
        fprintf(stderr, "Error: the plan takes %u inputs, %d given\n", (unsigned)plan.header->num_model_inputs,
                num_inputs);
        return 2;
    }
    /* The fast arena is exactly what the plan states it needs; the executor's working
     * storage and any state kept between runs are sized from the plan too. */
    fast_size = tigris_fast_arena_required(&plan);
    slow_size = slow_bytes_for(&plan);
    workspace_size = tigris_executor_workspace_required(&plan);
    state_size = tigris_state_required(&plan);
    tensor_ptrs = (void **)zeroed_block(plan.header->num_tensors * sizeof(void *));
    fast = zeroed_block(fast_size);
    slow = zeroed_block(slow_size);
    workspace = zeroed_block(workspace_size);
    state = zeroed_block(state_size);
    if (!tensor_ptrs || !fast || !slow || !workspace || !state) {
        fprintf(stderr, "Error: out of memory\n");
    } else if (tigris_mem_init(&mem, tensor_ptrs, plan.header->num_tensors, fast, fast_size, slow, slow_size) !=
               TIGRIS_MEM_OK) {
        fprintf(stderr, "Error: cannot set up the arenas\n");
    } else if (write_inputs(&plan, &mem, inputs) == 0) {
        /* int8 plans run on the int8 reference kernels, which hand float32 sections to the
         * float reference; tigris_run_with_state also runs plans that keep no state. */
        const tigris_kernel_fn kernel =
            tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
        exec = state_size ? tigris_state_init(&plan, state, state_size) : TIGRIS_EXEC_OK;
        if (exec == TIGRIS_EXEC_OK) {
            exec = tigris_run_with_state(&plan, &mem, kernel, NULL, &stats, workspace, workspace_size,
                                         state_size ? state : NULL, state_size);
        }
        if (exec != TIGRIS_EXEC_OK) {
            fprintf(stderr, "Error: run failed: %s\n", tigris_exec_error_str(exec));
        } else if (write_outputs(&plan, &mem, out) == 0) {
            printf("%s: fast peak %u of %u bytes, slow peak %u bytes, %u stages (%u tiled, %u chained)\n",
                   tigris_model_name(&plan), (unsigned)mem.fast_peak, (unsigned)fast_size, (unsigned)mem.slow_peak,
                   (unsigned)plan.header->num_stages, (unsigned)stats.stages_tiled, (unsigned)stats.stages_chain);
            rc = 0;
        }
    }
    free(tensor_ptrs);
    free(fast);
    free(slow);
    free(workspace);
    free(state);
    return rc;
}

int main(int argc, char **argv)
{
    uint32_t plan_len = 0;
    uint8_t *plan_data;
    FILE *out;
    int rc;
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLAN.tgrs OUTPUT.bin [INPUT.bin ...]\n", argv[0]);
        return 2;
    }
    plan_data = read_file(argv[1], &plan_len);
    if (plan_data == NULL) return 1;
    out = fopen(argv[2], "wb");
    if (out == NULL) {
        fprintf(stderr, "Error: %s: cannot create the file\n", argv[2]);
        free(plan_data);
        return 1;
    }
    rc = run_plan(plan_data, plan_len, argv + 3, argc - 3, out);
    if (fclose(out) != 0) rc = 1;
    if (rc != 0) remove(argv[2]);
    free(plan_data);
    return rc;
}
