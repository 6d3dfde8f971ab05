# tigris_unity_groups(PREFIX SIZE src...): puts the sources, in order, into unity groups of
# SIZE files named PREFIX_0, PREFIX_1, ... (targets built with UNITY_BUILD_MODE GROUP).
function(tigris_unity_groups prefix size)
  set(count 0)
  foreach(src ${ARGN})
    math(EXPR batch "${count} / ${size}")
    math(EXPR count "${count} + 1")
    set_source_files_properties(${src} PROPERTIES UNITY_GROUP ${prefix}_${batch})
  endforeach()
endfunction()
