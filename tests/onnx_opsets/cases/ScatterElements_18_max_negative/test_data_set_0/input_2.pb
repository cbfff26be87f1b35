BupdatesJÇ	H¿™½Ì
Œ½þ¿