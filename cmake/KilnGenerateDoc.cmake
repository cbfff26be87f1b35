# cmake -DKILN_RUN="emulator|kiln" -DKILN_ARGS="help-man" -DKILN_OUT=file [-DKILN_GZIP=file.gz]
#   -P KilnGenerateDoc.cmake
# Runs kiln (under the cross build's emulator when one is given; '|' separates the command's
# words) and writes its standard output to KILN_OUT, and gzipped (-9, no name or time) to
# KILN_GZIP. The build's man page and bash completion (cmake/KilnInstall.cmake).
string(REPLACE "|" ";" _run "${KILN_RUN}")
string(REPLACE "|" ";" _args "${KILN_ARGS}")
execute_process(COMMAND ${_run} ${_args} OUTPUT_FILE ${KILN_OUT} RESULT_VARIABLE _rc
                ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  file(REMOVE ${KILN_OUT})
  message(FATAL_ERROR "'${_run} ${_args}' failed (${_rc}): ${_err}")
endif()
if(KILN_GZIP)
  find_program(_gzip gzip)
  if(_gzip)  # gzip -9n: no file name, no time stamp (Debian policy, lintian)
    execute_process(COMMAND ${_gzip} -9nc ${KILN_OUT} OUTPUT_FILE ${KILN_GZIP}
                    RESULT_VARIABLE _rc)
  endif()
  if(NOT _gzip OR NOT _rc EQUAL 0)
    file(ARCHIVE_CREATE OUTPUT ${KILN_GZIP} PATHS ${KILN_OUT} FORMAT raw COMPRESSION GZip
         COMPRESSION_LEVEL 9)
  endif()
endif()
