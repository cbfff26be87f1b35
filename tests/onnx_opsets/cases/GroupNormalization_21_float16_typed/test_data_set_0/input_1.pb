
BsJt�a4ӫԹ