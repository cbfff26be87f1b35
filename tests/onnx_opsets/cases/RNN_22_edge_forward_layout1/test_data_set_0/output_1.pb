ByhJÐIU¿<y¾6,k?D
ö>