/*
 * The plan and the input bytes, included at assembly time from the model's build folder
 * (found through -Wa,-I<folder>). The plan starts on a 64-byte boundary: the runtime reads
 * its weights in place, and CMSIS-NN needs 16.
 */
    .section .rodata.tigris_plan, "a"
    .balign 64
    .global tigris_plan_start
    .global tigris_plan_end
tigris_plan_start:
    .incbin "model.tgrs"
tigris_plan_end:

    .section .rodata.tigris_input, "a"
    .balign 64
    .global tigris_input_start
    .global tigris_input_end
tigris_input_start:
    .incbin "model_input.bin"
tigris_input_end:
