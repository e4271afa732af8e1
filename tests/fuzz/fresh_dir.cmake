# cmake -Ddir=DIR -P fresh_dir.cmake: DIR exists and is empty (the fuzz CTests' new corpus).
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
