BupdatesJß¿K§=
C#?